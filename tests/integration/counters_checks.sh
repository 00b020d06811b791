# shellcheck shell=bash
# Sourced by test_bench_relay.sh: what the nodes' own counters say of a run
# through a relay, checked on a run's output directory (no run of its own).
# counters_checks DIR: every machine has its counters' deltas over the
# sweep; both ends of every pair recorded relayed had a circuit (one open
# at the sweep's start or opened during it), and no relayed record's
# evidence says the counters disagree; no host relayed a circuit (the
# relay is outside the run); a punch's outcome, where there is one, is one
# of punchr's words.
counters_checks() {
	local rec=$1/measurements.jsonl run=$1/run.json h
	assert_eq 0 "$(jq '[.machines[]|select(.counters.circuits_opened == null or .counters.circuits_open_before == null)]|length' "$run")" \
	    "every machine has its counters over the sweep"
	for h in $(jq -r 'select(.path == "relayed" and .target != "relay")|.source, .target' "$rec" | sort -u); do
		assert_eq true "$(jq --arg h "$h" '.machines[]|select(.name == $h)|.counters|.circuits_open_before + .circuits_opened > 0' "$run")" \
		    "$h, an end of a relayed pair, had a circuit"
	done
	assert_eq 0 "$(jq -r 'select(.path == "relayed" and (.path_evidence|contains("counters disagree")))' "$rec" | wc -l)" \
	    "no relayed record the counters disagree with"
	assert_eq 0 "$(jq '[.machines[]|select((.counters.relay_circuits_served // 0) > 0)]|length' "$run")" \
	    "no host relayed a circuit"
	assert_eq 0 "$(jq '[.punch[]|select(.outcome != null and ([.outcome]|inside(["success", "no connection", "no stream", "failed"])|not))]|length' "$run")" \
	    "punch outcomes in punchr's words"
	jq -c '.machines[]|{(.name): .counters}' "$run" >&2
}
