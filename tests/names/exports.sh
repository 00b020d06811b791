#!/usr/bin/env bash
# exports.sh LIBRARY ALLOWLIST: every symbol LIBRARY (libnetprof_core.a)
# exports carries its source file's prefix: for transport_ssh_tunnel.c
# that is transport_ssh_tunnel_, transport_ssh_ or transport_ (a module's
# prefix, as tmux's cmd_ or OpenSSH's channel_), and a file's own name is
# a name too. ALLOWLIST lines are "FILE PREFIX  # why": FILE (without .c)
# may export names starting with PREFIX ("*" for any). Prints each name
# out of place and exits 1 if there is one.
set -u
set -f	# "*" in the allowlist is a word, not a glob
lib=$1 allow=$2
command -v nm >/dev/null || { echo "exports.sh: nm (binutils) is needed" >&2; exit 2; }
[[ -f $lib ]] || { echo "exports.sh: $lib: no such library" >&2; exit 2; }

declare -A allowed=()
while read -r file prefix _; do
	[[ -z $file || $file == \#* ]] && continue
	allowed[$file]+=" $prefix"
done <"$allow"

bad=0 n=0
while IFS=: read -r _ obj rest; do
	sym=${rest##* }
	file=${obj%.c.o}
	file=${file%.o}
	# the compiler's and sanitizers' own (__odr_asan.x, __sancov_...)
	[[ $sym == __* || $sym == *.* ]] && continue
	n=$((n + 1))
	ok=0 p=$file
	while :; do
		if [[ $sym == "$p" || $sym == "${p}_"* ]]; then ok=1; break; fi
		[[ $p == *_* ]] || break
		p=${p%_*}
	done
	if (( !ok )); then
		for a in ${allowed[$file]:-}; do
			if [[ $a == "*" || $sym == "$a"* ]]; then ok=1; break; fi
		done
	fi
	if (( !ok )); then
		echo "$file.c exports $sym: give it the file's prefix (${file%%_*}_...), make it static, or argue it in $(basename "$allow")"
		bad=1
	fi
done < <(nm -A -g --defined-only "$lib" 2>/dev/null | awk '$(NF-1) ~ /^[A-Z]$/ && $(NF-1) != "U"')
if (( n == 0 )); then
	echo "exports.sh: no symbols read from $lib" >&2
	exit 2
fi
(( bad )) && exit 1
echo "exports.sh: $n exported names, each with its file's prefix"
