# shellcheck shell=bash
# Sourced by test_bench_relay.sh: what a run through a relay says of its
# relays, checked on a run's output directory (no run of its own).
# relay_named_checks DIR NAME MULTIADDR: the --bootstrap relay NAME=MULTIADDR
# is in run.json's relays; every relayed record names its relay by name
# and PeerID, the two agreeing (a host of the run's, or the --bootstrap
# relay's), and its evidence says where the relay was read (the target's
# circuit address, or a relay_peer in a node table); heatmap --advise on
# the run gives each host the reach checks could not dial a relay, the
# patch carrying that relay's multiaddr (or, a machine of the run, making
# it public).
relay_named_checks() {
	local name=$2 ma=$3 rec=$1/measurements.jsonl run=$1/run.json adv ids h r want
	assert_eq "$ma" "$(jq -r --arg n "$name" '.relays[$n]' "$run")" "run.json keeps the relay's multiaddr"
	# name -> PeerID: the machines', the --bootstrap relay's from its multiaddr
	ids=$(jq -r --arg n "$name" --arg id "${ma##*/}" '[(.machines[] | {(.name): .peer_id}), {($n): $id}] | add' "$run")
	assert_eq 0 "$(jq -r --argjson ids "$ids" 'select(.path == "relayed" and (.relay == null or $ids[.relay] != .relay_peer_id))' "$rec" | wc -l)" \
	    "every relayed record names its relay, name and PeerID agreeing"
	assert_eq 0 "$(jq -r 'select(.path == "relayed" and (.path_evidence | test("relay: (the one in .*circuit address|.*relay_peer in the node table)") | not))' "$rec" | wc -l)" \
	    "every relayed record's evidence says where its relay was read"
	adv=$("$NETPROF_BIN" heatmap --input "$rec" --input "$run" --advise-json - 2>/dev/null) ||
	    fail "heatmap --advise on the run: exit $?"
	for h in $(jq -r '.reach | to_entries[] | select(.value.tcp == false) | .key | sub(".*->"; "")' "$run" | sort -u); do
		[ "$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) | .relay' <<<"$adv")" != "" ] ||
		    fail "--advise: $h, which a reach check could not dial, has no line"
	done
	assert_eq 0 "$(jq -r '.hosts[] | select(.relay == null) | .host' <<<"$adv" | wc -l)" "--advise: a relay for every host that needs one"
	# a --bootstrap relay: the host's bootstrap_extra is its multiaddr; a
	# machine of the run (a new PeerID each run): it is made public
	while read -r h r; do
		if jq -e --arg r "$r" 'any(.machines[]; .name == $r)' "$run" >/dev/null; then
			assert_eq true "$(jq --arg h "$h" --arg r "$r" '(.public | index($r)) != null and .bootstrap_extra[$h] == null' <<<"$adv")" \
			    "--advise: $h's relay $r, a machine of the run, made public and in no bootstrap_extra"
			continue
		fi
		assert_eq "$(jq -r --arg r "$r" '.relays[$r]' "$run")" "$(jq -r --arg h "$h" '.bootstrap_extra[$h][0]' <<<"$adv")" "--advise: $h's bootstrap_extra is $r's multiaddr"
	done < <(jq -r '.hosts[] | "\(.host) \(.relay)"' <<<"$adv")
	printf '%s\n' "$adv" >&2
}
