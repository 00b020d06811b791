#!/usr/bin/env bash
# A soft open-file limit below what the hosts need is raised to the hard
# one at start: 80 hosts at once (three pipes each) under `ulimit -S -n 64`
# all run, none fails with "too many open files". No host is contacted
# (local transport).
. "$(dirname "$0")/lib.sh"

T=$NETPROF_TEST_TMP/faults-fdlimit
rm -rf "$T"
mkdir -p "$T"
python3 - >"$T/machines.json" <<'PY'
import json
print(json.dumps({"machines": [{"name": "m%d" % i, "address": "127.0.0.1",
    "transport": "local"} for i in range(80)]}))
PY
[ "$(ulimit -H -n)" = unlimited ] || [ "$(ulimit -H -n)" -ge 1024 ] ||
    skip "the hard open-file limit is below 1024"
assert_status 0 bash -c "ulimit -S -n 64 && exec \"\$0\" exec --config \"\$1\" 'sleep 1; echo ok'" \
    "$NETPROF_BIN" "$T/machines.json"
assert_eq 80 "$(grep -c ': ok$' <<<"$OUT")" "every host ran"
assert_not_contains "$OUT" "too many open files"
test_pass
