# shellcheck shell=bash
# Sourced by test_bench_relay.sh: what the nodes' own counters say of a run
# through a relay, checked on a run's output directory (no run of its own).
# counters_checks DIR: every machine has its counters' deltas over the
# sweep; an end of every pair recorded relayed had a circuit (one open
# at the sweep's start or opened during it; go-libp2p, and the stand-in
# as it, counts a circuit only where it was dialled, one it accepts under
# transport "tcp"), and no relayed record's
# evidence says the counters disagree; no host relayed a circuit (the
# relay is outside the run); a punch's outcome, where there is one, is one
# of punchr's words.
counters_checks() {
	local rec=$1/measurements.jsonl run=$1/run.json had s t got
	assert_eq 0 "$(jq '[.machines[]|select(.counters.circuits_opened == null or .counters.circuits_open_before == null)]|length' "$run")" \
	    "every machine has its counters over the sweep"
	had=$(jq -c '[.machines[]|{(.name): (.counters|.circuits_open_before + .circuits_opened > 0)}]|add' "$run")
	while read -r s t; do
		got=$(jq -r --arg s "$s" --arg t "$t" '"\(.[$s]) \(.[$t])"' <<<"$had")
		[ "$got" != "false false" ] || fail "$s -> $t relayed, and neither end had a circuit"
		TEST_CHECKS=$((TEST_CHECKS + 1))
	done < <(jq -r 'select(.path == "relayed" and .target != "relay")|"\(.source) \(.target)"' "$rec" | sort -u)
	assert_eq 0 "$(jq -r 'select(.path == "relayed" and (.path_evidence|contains("counters disagree")))' "$rec" | wc -l)" \
	    "no relayed record the counters disagree with"
	assert_eq 0 "$(jq '[.machines[]|select((.counters.relay_circuits_served // 0) > 0)]|length' "$run")" \
	    "no host relayed a circuit"
	assert_eq 0 "$(jq '[.punch[]|select(.outcome != null and ([.outcome]|inside(["success", "no connection", "no stream", "failed"])|not))]|length' "$run")" \
	    "punch outcomes in punchr's words"
	jq -c '.machines[]|{(.name): .counters}' "$run" >&2
}
