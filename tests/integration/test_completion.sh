#!/usr/bin/env bash
# Shell completion written from the option tables (netprof completion
# bash|zsh), in the shells themselves, with no host contacted: bash's
# _netprof (sourced, called as bash calls it) completes the commands, each
# command's options from every --help, an option's choices, files for a
# FILE, the machines and @sites of the -c inventory for --hosts and
# --exclude (only names that keep the name rule: a hostile file's $(...)
# never runs), nothing for a number, and the completion command's shells;
# zsh (an interactive zsh in a pseudo-terminal, TAB pressed) lists a
# command's options, an option's choices and the inventory's machines.
. "$(dirname "$0")/lib.sh"
require_cmd bash zsh jq

T=$NETPROF_TEST_TMP/completion
rm -rf "$T" && mkdir -p "$T/bin" "$T/zfunc"
[ "${GOLDEN_KEEP:-0}" = 1 ] || at_exit "rm -rf '$T'"
ln -sf "$NETPROF_BIN" "$T/bin/netprof"
cat >"$T/m.json" <<'EOF'
{"machines": [{"name": "n01", "address": "192.0.2.1", "site": "zurich"},
              {"name": "n02", "address": "192.0.2.2", "site": "lugano"}]}
EOF

assert_status 2 "$NETPROF_BIN" completion
assert_contains "$OUT" "netprof completion: which shell? bash or zsh"
assert_status 2 "$NETPROF_BIN" completion fish
assert_contains "$OUT" "'fish' is not bash or zsh"

# --- bash ---------------------------------------------------------------
"$NETPROF_BIN" completion bash >"$T/netprof.bash"
assert_status 0 bash -n "$T/netprof.bash"

# comp WORD...: what bash's completion offers for the last word
comp() {
	# shellcheck disable=SC2016
	bash -c 'cd "$1" && source ./netprof.bash && shift &&
	    COMP_WORDS=("$@") && COMP_CWORD=$(( $# - 1 )) && _netprof &&
	    echo "${COMPREPLY[*]}"' _ "$T" "$@"
}
assert_eq "collect completion" "$(comp netprof co)" "commands"
assert_eq "--iperf --iperf-mode --iperf-seconds --iperf-port --iperf-streams --iperf-reverse" \
    "$(comp netprof collect --ip)" "collect's options"
assert_eq "exclusive duplex" "$(comp netprof -v collect --iperf-mode '')" \
    "an option's choices"
assert_eq "m.json" "$(comp netprof plan --config m.)" "a FILE"
assert_eq "@lugano @zurich n01 n02" \
    "$(comp netprof plan -c m.json --hosts '')" "machines and sites"
assert_eq "n01 n02" "$(comp netprof collect -c m.json -x n)" "--exclude"
# a machines.json is anyone's: bash offers of it only the names and sites
# that keep the name rule, and runs none of its text on TAB
cat >"$T/hostile.json" <<'EOF'
{"machines": [{"name": "n01", "address": "192.0.2.1", "site": "x`touch ran-site`"},
              {"name": "b$(touch ran-name)", "address": "192.0.2.2"},
              {"name": "n02;touch ran-semi", "address": "192.0.2.3"},
              {"name": "n03\n$(touch ran-line)", "address": "192.0.2.4"},
              {"name": "*", "address": "192.0.2.5", "site": "lugano"},
              {"name": "n04", "address": "192.0.2.6", "site": "zurich"}]}
EOF
assert_eq "@lugano @zurich n01 n04" \
    "$(comp netprof collect -c hostile.json --hosts '')" \
    "only the names that keep the name rule"
assert_eq "n01 n04" "$(comp netprof collect -c hostile.json -x n)" \
    "a hostile file's good names"
assert_eq "" "$(comp netprof collect -c hostile.json --hosts 'b$')" \
    "nothing for a hostile name"
assert_eq "" "$(cd "$T" && ls -d ran-* 2>/dev/null)" \
    "bash ran nothing of machines.json"
assert_eq "" "$(comp netprof collect --ping-count '')" "nothing for a number"
assert_eq "bash zsh" "$(comp netprof completion '')" "the shells"
assert_eq "plan" "$(comp netprof help pl)" "help's commands"
# every option of every command's help, as the table has them
for c in check plan exec collect bench heatmap completion; do
	for o in $("$NETPROF_BIN" "$c" --help | sed -n '/^options:/,/^$/p' |
	    grep -oE '^ +(-[a-zA-Z], )*--[a-z0-9-]+' | sed 's/.*--//'); do
		assert_contains " $(comp netprof "$c" --) " " --$o " \
		    "bash offers $c --$o"
	done
done

# --- zsh ----------------------------------------------------------------
"$NETPROF_BIN" completion zsh >"$T/zfunc/_netprof"
assert_status 0 zsh -n "$T/zfunc/_netprof"

# zcomp LINE: what an interactive zsh lists when TAB is pressed after
# LINE (escape sequences and carriage returns taken out)
zcomp() {
	# The pty echoes the line typed, wrapped at its width wherever the
	# path puts the wrap: the marker is typed as REA""DY, so that only
	# what print writes matches READY, however the echo is cut.
	# shellcheck disable=SC2016
	zsh -f -c '
	    zmodload zsh/zpty || exit 1
	    zpty z zsh -f -i
	    zpty -w z "PS1=\"> \"; PATH=$1:\$PATH; cd $2; fpath=($2/zfunc \$fpath); autoload -Uz compinit; compinit -u -D; print REA\"\"DY"
	    zpty -r -m z line "*READY*" || exit 1
	    zpty -w -n z "$3"$'"'"'\t'"'"'
	    sleep 1
	    out=; while zpty -r -t z line; do out+=$line; done
	    zpty -d z
	    print -r -- "$out"' _ "$T/bin" "$T" "$1" |
	    sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' | tr -d '\r\a\b'
}
out=$(zcomp "netprof collect --iperf-mode ")
assert_contains "$out" "duplex" "zsh: an option's choices"
assert_contains "$out" "exclusive"
out=$(zcomp "netprof plan --ping-")
assert_contains "$out" "--ping-count" "zsh: plan's options"
assert_contains "$out" "--ping-interval"
assert_contains "$out" "--ping-tool"
out=$(zcomp "netprof plan -c m.json --hosts ")
assert_contains "$out" "n01" "zsh: the inventory's machines"
assert_contains "$out" "@zurich"
out=$(zcomp "netprof plan -c hostile.json --hosts ")
assert_contains "$out" "n04" "zsh: a hostile file's good names"
assert_not_contains "$out" "touch" "zsh: only names that keep the name rule"
assert_eq "" "$(cd "$T" && ls -d ran-* 2>/dev/null)" \
    "zsh ran nothing of machines.json"
out=$(zcomp "netprof comp")
assert_contains "$out" "netprof completion" "zsh: a command completed"

test_pass
