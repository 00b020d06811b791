#!/usr/bin/env bash
# Nothing of otela's or Chromium's in the home of the user who runs the
# suite: the tests give every otela they start (directly, or through
# netprof, whose bench gives each otela command its run's directory as
# HOME) and every Chromium (tests/browser/setup.mjs) a home of their own.
# `home.sh before` records what ~/.config/opentela and ~/.ocfcore (and
# Chromium's ~/.config/chromium, ~/.cache/chromium, ~/.cache/dconf, ~/.pki) hold
# (for $HOME and the user's home in the password database, when they
# differ) in NETPROF_TEST_TMP; `home.sh after`, once every test has run,
# fails naming whatever was added or changed there meanwhile (what is gone
# is only told). ctest
# runs the two as the fixture every test requires (tests/CMakeLists.txt),
# so also a single `ctest -R NAME` is checked.
set -euo pipefail
state=${NETPROF_TEST_TMP:?run through ctest}/suite-home.txt

homes() {
	local h pw
	pw=$(getent passwd "$(id -u)" | cut -d: -f6) || pw=
	for h in "${HOME:-}" "$pw"; do
		[ -n "$h" ] && [ -d "$h" ] && echo "$h"
	done | sort -u
}

# One line per file or directory of otela's in the homes: path, type, and
# a file's size and modification time (a directory's time changes with
# what is removed from it).
snapshot() {
	local h d
	for h in $(homes); do
		for d in "$h/.config/opentela" "$h/.ocfcore" "$h/.config/chromium" \
		    "$h/.cache/chromium" "$h/.cache/dconf" "$h/.pki"; do
			[ -e "$d" ] || continue
			find "$d" \( -type d -printf '%p d\n' \) -o -printf '%p %y %s %T@\n'
		done
	done | sort
}

case ${1:-} in
before)
	mkdir -p "$(dirname "$state")"
	snapshot >"$state"
	echo "otela's files in $(homes | paste -sd' ' -) before the suite: $(wc -l <"$state")"
	;;
after)
	[ -f "$state" ] || { echo "home.sh: no record of before ($state)" >&2; exit 1; }
	now=$(snapshot)
	# What is there now and was not, or not so: written during the suite.
	# What is gone is only told (another program, a node's own cleanup).
	written=$(diff <(cat "$state") <(printf '%s\n' "$now" | sed '/^$/d') |
	    sed -n 's/^> \([^ ]*\) .*/  \1/p') || true
	gone=$(comm -23 <(cut -d' ' -f1 "$state" | sort -u) <(printf '%s\n' "$now" | cut -d' ' -f1 | sort -u) |
	    sed '/^$/d; s/^/  /') || true
	[ -z "$gone" ] || echo "gone since the suite began (not counted):"$'\n'"$gone"
	if [ -n "$written" ]; then
		echo "FAIL: the suite wrote into the home of the user running it (a test started otela or Chromium without a HOME of its own):" >&2
		echo "$written" >&2
		exit 1
	fi
	rm -f "$state"
	echo "nothing of otela's written in $(homes | paste -sd' ' -)"
	;;
*)
	echo "usage: home.sh before|after" >&2
	exit 2
	;;
esac
