#!/usr/bin/env python3
"""upstream_form.py UPSTREAM_DIR FILE...

Each FILE that netprof wrote (records as .jsonl, or a bench run.json) is
in the form the upstream profiler writes its files in, and Python would
write for its values: every line of records is exactly
json.dumps(json.loads(line), sort_keys=True) (so ", " and ": ", sorted
keys, \\u escapes, integers as integers and floats as Python's repr), and a
run.json is exactly json.dumps(json.loads(text), indent=2,
sort_keys=True), with no newline at the end, as json.dump() leaves it.
And every key that upstream's sample of the same kind of record (or its
run.json) has is there, with a value of the same JSON type: a float where
upstream writes a float (iperf3's bytes: 2890006528.0), an integer where
it writes one. Prints what differs and exits 1; 0 when all is well.
"""
import json
import os
import sys

failures = []


def kind_of(v):
    if isinstance(v, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", type(None): "null",
            list: "list", dict: "object"}[type(v)]


# objects keyed by host or pair names: their members compare with any one
BY_NAME = {"convergence", "punch"}


def same_types(up, ours, where):
    if isinstance(up, dict):
        if not isinstance(ours, dict):
            failures.append("%s: upstream has an object, netprof %s"
                            % (where, kind_of(ours)))
            return
        if where.rsplit(".", 1)[-1] in BY_NAME:
            if up and ours:
                k, v = next(iter(up.items()))
                same_types(v, next(iter(ours.values())), where + "." + k)
            return
        for k, v in up.items():
            if k not in ours:
                failures.append("%s: netprof has no \"%s\"" % (where, k))
            else:
                same_types(v, ours[k], where + "." + k)
        return
    if isinstance(up, list):
        if not isinstance(ours, list):
            failures.append("%s: upstream has a list, netprof %s"
                            % (where, kind_of(ours)))
        elif up and ours:
            same_types(up[0], ours[0], where + "[0]")
        return
    if kind_of(up) != kind_of(ours):
        failures.append("%s: upstream writes %s (%r), netprof %s (%r)"
                        % (where, kind_of(up), up, kind_of(ours), ours))


def upstream_records(path):
    """The first upstream record of each (kind, ok)."""
    first = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            first.setdefault((r["kind"], r["ok"]), r)
    return first


def check_records(path, samples):
    with open(path, encoding="ascii") as f:
        for n, line in enumerate(f, 1):
            text = line.rstrip("\n")
            r = json.loads(text)
            if json.dumps(r, sort_keys=True) != text:
                failures.append("%s:%d is not json.dumps()'s form:\n  %s\n"
                                "  %s" % (path, n, text,
                                          json.dumps(r, sort_keys=True)))
            up = samples.get((r.get("kind"), r.get("ok")))
            if up is not None:
                same_types(up, r, "%s:%d" % (path, n))


def check_run(path, up):
    with open(path, encoding="ascii") as f:
        text = f.read()
    run = json.loads(text)
    if json.dumps(run, indent=2, sort_keys=True) != text:
        failures.append("%s is not json.dump(indent=2)'s form" % path)
    same_types(up, run, path)


def main():
    up = sys.argv[1]
    samples = upstream_records(os.path.join(up, "collect.jsonl"))
    samples.update(upstream_records(
        os.path.join(up, "bench-4", "measurements.jsonl")))
    with open(os.path.join(up, "bench-4", "run.json")) as f:
        run = json.load(f)
    for path in sys.argv[2:]:
        if path.endswith(".jsonl"):
            check_records(path, samples)
        else:
            check_run(path, run)
    for f in failures[:20]:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
