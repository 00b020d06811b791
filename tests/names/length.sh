#!/usr/bin/env bash
# length.sh SRC [MAX]: no source file under SRC (.c, .h, .js, .css) is longer
# than MAX lines (900): a file that grows past it holds more than one concern
# and is split along them (docs/architecture.md, "One concern per file").
set -u
src=$1 max=${2:-900}
bad=0
while IFS= read -r path; do
	n=$(grep -c '' "$path")
	if (( n > max )); then
		echo "${path#"$src"/}: $n lines, over $max: split it along its concerns"
		bad=1
	fi
done < <(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.js' \
    -o -name '*.css' \) | sort)
(( bad )) && exit 1
echo "length.sh: every file under src/ has at most $max lines"
