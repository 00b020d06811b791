#!/usr/bin/env bash
# Nothing of otela's in the home of the user who runs the suite: the tests
# give every otela they start (directly, or through netprof, whose bench
# gives each otela command its run's directory as HOME) a home of their
# own. `home.sh before` records what ~/.config/opentela and ~/.ocfcore hold
# (for $HOME and the user's home in the password database, when they
# differ) in NETPROF_TEST_TMP; `home.sh after`, once every test has run,
# fails naming whatever the suite added, changed or removed there. ctest
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

# One line per file or directory of otela's in the homes: path, type,
# size, modification time.
snapshot() {
	local h d
	for h in $(homes); do
		for d in "$h/.config/opentela" "$h/.ocfcore"; do
			[ -e "$d" ] || continue
			find "$d" -printf '%p %y %s %T@\n'
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
	changed=$(diff <(cat "$state") <(printf '%s\n' "$now" | sed '/^$/d') |
	    sed -n 's/^< \([^ ]*\) .*/  gone or changed: \1/p; s/^> \([^ ]*\) .*/  new or changed:  \1/p') || true
	if [ -n "$changed" ]; then
		echo "FAIL: the suite wrote into the home of the user running it (a test started otela without a HOME of its own):" >&2
		echo "$changed" >&2
		exit 1
	fi
	rm -f "$state"
	echo "nothing of otela's changed in $(homes | paste -sd' ' -)"
	;;
*)
	echo "usage: home.sh before|after" >&2
	exit 2
	;;
esac
