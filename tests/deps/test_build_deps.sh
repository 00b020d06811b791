#!/usr/bin/env bash
# The README's build needs only `tests/install-deps.sh build`: configure and
# build netprof (tests off, -Werror) in a clean directory with only the build
# group's programs and pkg-config modules (tests/deps/only.sh), then check that
# every header the compiler read and every library the binary loads belongs
# to those packages. A package used but not named in the build group fails.
# Built without optimisation (CMAKE_BUILD_TYPE None): the headers read and
# the libraries linked do not depend on it, and the suite's own builds
# compile the same sources optimised.
set -euo pipefail

src=${NETPROF_SRC:?}
T=${NETPROF_TEST_TMP:?}/build-deps
rm -rf "$T"
mkdir -p "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$src/tests/deps/only.sh" --dir "$T/only" build -- bash -c '
	cmake -S "$1" -B "$2" -DNETPROF_TESTS=OFF -DNETPROF_WERROR=ON \
	    -DCMAKE_BUILD_TYPE=None >"$2.log" 2>&1 &&
	cmake --build "$2" -j 2 >>"$2.log" 2>&1' _ "$src" "$T/build" ||
    fail "build with only the build group's packages: $(tail -20 "$T/build.log")"
[ -x "$T/build/netprof" ] || fail "no netprof in $T/build"
"$T/build/netprof" --version >/dev/null || fail "the built netprof does not run"

# Headers: from the compiler's dependency files; outside the build group's
# packages (and the source tree) is a missing install step.
find "$T/build" -name '*.d' -exec cat {} + | tr ' \\' '\n\n' |
    grep -E '^/usr/.*\.h$' | sort -u | xargs -r realpath -e | sort -u >"$T/headers"
[ -s "$T/headers" ] || fail "no dependency files listed a system header"
comm -23 "$T/headers" "$T/only/files" >"$T/headers.foreign"
[ ! -s "$T/headers.foreign" ] ||
    fail "headers from packages outside the build group: $(head -5 "$T/headers.foreign" | xargs -r dpkg -S 2>&1 | tr '\n' ' ')"

# Libraries: what the dynamic loader gives the binary.
ldd "$T/build/netprof" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | xargs -r realpath -e |
    sort -u >"$T/libs"
[ -s "$T/libs" ] || fail "ldd listed no library"
comm -23 "$T/libs" "$T/only/files" >"$T/libs.foreign"
[ ! -s "$T/libs.foreign" ] ||
    fail "libraries from packages outside the build group: $(xargs -r dpkg -S <"$T/libs.foreign" 2>&1 | tr '\n' ' ')"

echo "build with only the build group: $(wc -l <"$T/headers") system headers, $(wc -l <"$T/libs") libraries, all from $(wc -l <"$T/only/packages") packages"
