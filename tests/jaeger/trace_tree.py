#!/usr/bin/env python3
"""The traces Jaeger holds for a service, as lines a test can grep.

    trace_tree.py QUERY_URL SERVICE [MIN_TRACES]

asks Jaeger's query API (GET QUERY_URL/api/traces?service=SERVICE) until
it holds at least MIN_TRACES (default 1) traces and their span count has
not grown for a second (Jaeger stores what it receives a moment later),
at most 20 s, then prints

    traces N
    spans M
    PATH | KEY=VALUE ... | ERROR: MESSAGE | span=ID trace=ID

one line per span, PATH being the span names from the trace's root down
("netprof bench > phase start > start > health"), KEY=VALUE the span's
netprof.* attributes but the metrics, ERROR its error status if it has
one. Exit 1 if no trace came.
"""
import json
import sys
import time
import urllib.parse
import urllib.request


def fetch(url, service):
    q = urllib.parse.urlencode({"service": service, "limit": 100,
                                "lookback": "1h"})
    with urllib.request.urlopen(f"{url}/api/traces?{q}", timeout=5) as r:
        return json.load(r).get("data") or []


def lines(traces):
    out = []
    for t in traces:
        spans = {s["spanID"]: s for s in t["spans"]}

        def parent(s):
            for r in s.get("references") or []:
                if r.get("refType") == "CHILD_OF" and r["spanID"] in spans:
                    return spans[r["spanID"]]
            return None

        for s in sorted(t["spans"], key=lambda s: (s["startTime"],
                                                   s["spanID"])):
            path, p = [s["operationName"]], parent(s)
            while p is not None:
                path.insert(0, p["operationName"])
                p = parent(p)
            tags = {g["key"]: g["value"] for g in s.get("tags") or []}
            attrs = " ".join(
                f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                for k, v in sorted(tags.items())
                if k.startswith("netprof.") and
                not k.startswith("netprof.metrics."))
            err = (f"ERROR: {tags.get('otel.status_description', '')}"
                   if tags.get("otel.status_code") == "ERROR" else "")
            out.append(f"{' > '.join(path)} | {attrs} | {err} | "
                       f"span={s['spanID']} trace={s['traceID']}")
    return out


def main():
    url, service = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    end, last, same, traces = time.time() + 20, -1, 0, []
    while time.time() < end:
        try:
            traces = fetch(url, service)
        except OSError:
            traces = []
        n = sum(len(t["spans"]) for t in traces)
        same = same + 1 if n == last else 0
        # the same count three times over a second: all stored
        if len(traces) >= want and same >= 2:
            break
        last = n
        time.sleep(0.5)
    if not traces:
        print(f"no trace of service {service} in Jaeger", file=sys.stderr)
        return 1
    print(f"traces {len(traces)}")
    print(f"spans {sum(len(t['spans']) for t in traces)}")
    print("\n".join(lines(traces)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
