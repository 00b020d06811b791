#!/usr/bin/env bash
# architecture.sh SRC DOC: docs/architecture.md's file list (its first code
# block) is the tree under SRC. Every source file (.c, .h, the page's .css,
# .js and .cmake) is named in its folder's part of the list (a header by its
# own name or its source's: "a header sits beside its source"), and every
# file the list names exists.
set -u
src=$1 doc=$2
# the list: the lines of the first ``` block
list=$(awk '/^```/ { if (seen) exit; seen = 1; next } seen' "$doc")
[[ -n $list ]] || { echo "architecture.sh: no file list in $doc" >&2; exit 2; }
names='[A-Za-z0-9_]+\.(c|h|css|js|cmake)'
bad=0

# folder<TAB>name for every name in the list, by the folder part it sits in
named=$(awk -v re="$names" '
	/^src\// { dir = $1; sub(/\/$/, "", dir) }
	/^src / { dir = "src" }
	{
		line = $0
		while (match(line, re)) {
			after = substr(line, RSTART + RLENGTH, 1)
			if (after !~ /[A-Za-z0-9_]/)
				print dir "\t" substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
		}
	}' <<<"$list" | sort -u)

# every file named exists (somewhere under SRC: the text may name another folder's)
while IFS=$'\t' read -r dir name; do
	[[ -n $name ]] || continue
	if [[ -z $(find "$src" -name "$name" -print -quit) ]]; then
		echo "docs/architecture.md names $name (under $dir/), which is not in src/"
		bad=1
	fi
done <<<"$named"

# every file is named in its folder's part
while read -r path; do
	rel=${path#"$src"/}
	dir=src/$(dirname "$rel")
	[[ $dir == src/. ]] && dir=src
	base=$(basename "$rel")
	grep -qxF "$dir"$'\t'"$base" <<<"$named" && continue
	if [[ $base == *.h ]] &&
	    grep -qxF "$dir"$'\t'"${base%.h}.c" <<<"$named"; then
		continue
	fi
	echo "src/$rel is not in docs/architecture.md's file list (under $dir/)"
	bad=1
done < <(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.css' \
    -o -name '*.js' -o -name '*.cmake' \) | sort)

(( bad )) && exit 1
echo "architecture.sh: docs/architecture.md lists every file under src/, and only those"
