#!/usr/bin/env bash
# Run a command as if on a fresh Debian machine where only the named groups of
# tests/install-deps.sh were installed: PATH holds only the programs, and
# PKG_CONFIG_LIBDIR only the pkg-config modules, of the packages every Debian
# has (Essential or Priority required, as debootstrap installs) plus those
# groups' packages and what they depend on (Depends and Pre-Depends; the
# installer passes --no-recommends). A tool or library that an install step
# forgets is then missing here too, even on a machine where someone installed
# it by hand. Also writes the package list and their files, for checks that
# look at headers and libraries (test_build_deps.sh).
#
# --install first runs tests/install-deps.sh for those groups (as a fresh
# machine would, before its first command).
#
#   tests/deps/only.sh [--install] [--dir DIR] GROUP... -- COMMAND [ARGS...]
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
dir=
install=0
groups=()
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--install) install=1; shift ;;
	--) shift; break ;;
	build|lab|test) groups+=("$1"); shift ;;
	*) echo "only.sh: unknown group or option '$1' (build, lab, test)" >&2; exit 2 ;;
	esac
done
[ ${#groups[@]} -gt 0 ] && [ $# -gt 0 ] ||
    { echo "usage: only.sh [--install] [--dir DIR] GROUP... -- COMMAND [ARGS...]" >&2; exit 2; }
# CMake keeps the paths of the programs it found (the compiler, make,
# pkg-config): the directory stays, at the same place for the same groups,
# so a build directory configured here still works afterwards.
dir=${dir:-$src/build/only-$(IFS=-; echo "${groups[*]}")}
[ "$install" = 0 ] || "$src/tests/install-deps.sh" "${groups[@]}"

# The packages a group installs, read from the installer itself so the two
# cannot drift apart.
group_pkgs() {
	local g=$1
	bash -c '. <(sed -n "/^build_pkgs=/,/^groups=/p" "$1" | sed "\$d")
	    case $2 in
	    build) echo $build_pkgs ;;
	    lab) echo $build_pkgs $lab_pkgs ;;
	    test) echo $build_pkgs $lab_pkgs $test_pkgs ;;
	    esac' _ "$src/tests/install-deps.sh" "$g"
}

want=""
for g in "${groups[@]}"; do want="$want $(group_pkgs "$g")"; done
base=$(dpkg-query -W -f='${Package} ${Essential} ${Priority} ${db:Status-Status}\n' |
    awk '$4 == "installed" && ($2 == "yes" || $3 == "required") { print $1 }')
# A package of a group that is missing here makes the check meaningless;
# install-deps.sh accepts a Node.js not from Debian: take the package that
# owns the command instead.
pkgs=""
for p in $want; do
	if dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		pkgs="$pkgs $p"
		continue
	fi
	case $p in nodejs) cmd=node ;; npm) cmd=npm ;; *) cmd="" ;; esac
	if [ -n "$cmd" ] && owner=$(dpkg -S "$(readlink -f "$(command -v "$cmd")")" 2>/dev/null); then
		pkgs="$pkgs ${owner%%:*}"
		continue
	fi
	echo "only.sh: package $p (tests/install-deps.sh ${groups[*]}) is not installed; run tests/install-deps.sh ${groups[*]}" >&2
	exit 1
done

rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/pkgconfig"
# shellcheck disable=SC2086
apt-cache depends --recurse --installed --no-recommends --no-suggests \
    --no-conflicts --no-breaks --no-replaces --no-enhances $base $pkgs |
    grep -v '^ ' | grep -v '^<' | sed 's/:.*//' | sort -u >"$dir/packages"
# shellcheck disable=SC2046
dpkg-query -L $(cat "$dir/packages") 2>/dev/null | grep '^/' |
    xargs -d '\n' realpath -q -e 2>/dev/null | sort -u >"$dir/files" || true

# Programs: every executable of those packages in a bin directory, and the
# symlinks there (alternatives such as cc and awk) that end at one of them.
for d in /usr/bin /usr/sbin /bin /sbin; do
	find "$d" -maxdepth 1 \( -type f -o -type l \) -printf '%f\t%p\n' 2>/dev/null
done | sort -u -k1,1 >"$dir/names"
cut -f2 "$dir/names" | xargs -d '\n' realpath -m | paste "$dir/names" - |
    awk -F'\t' 'NR == FNR { own[$0] = 1; next } ($3 in own) { print $1 "\t" $3 }' \
    "$dir/files" - >"$dir/programs"
while IFS=$'\t' read -r name target; do
	[ -x "$target" ] && ln -s "$target" "$dir/bin/$name"
done <"$dir/programs"
grep -E '/pkgconfig/[^/]+\.pc$' "$dir/files" | while read -r f; do
	ln -sf "$f" "$dir/pkgconfig/$(basename "$f")"
done

PATH=$dir/bin PKG_CONFIG_LIBDIR=$dir/pkgconfig PKG_CONFIG_PATH= \
    NETPROF_ONLY_DIR=$dir "$@"
