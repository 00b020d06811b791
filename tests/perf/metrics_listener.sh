#!/usr/bin/env bash
# Load on the /metrics listener, on loopback only, a bounded number of
# connections: collect --every (local transport, HOSTS names on
# 127.0.0.x, one sweep) serves its exposition, and a client measures
#   - scrapes one after another (a new connection each): median, p95;
#   - the same (from 127.0.0.3) while 16 idle connections (8 from
#     127.0.0.1, 8 from 127.0.0.2) are held, each one the listener closes opened again at
#     once: scrapes answered, median and p95, and the ratio to the first;
#   - 16 clients scraping at once (OpenMetrics, as Prometheus asks; each
#     from an address of its own, 127.0.1.x):
#     scrapes a second, and netprof's resident memory before and after
#     against the exposition's size (an answer shares the exposition:
#     no copy per scrape).
#
# usage: tests/perf/metrics_listener.sh [HOSTS] [SCRAPES]   (default: 32 200)
# env:   NETPROF_BIN (default: build/main/netprof, built)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/perf/build.sh"
BIN=$(bench_binary "${NETPROF_BIN:-}") || exit 1
HOSTS=${1:-32}
SCRAPES=${2:-200}
[ "$HOSTS" -ge 2 ] && [ "$HOSTS" -le 250 ] || { echo "HOSTS: 2 to 250" >&2; exit 2; }
command -v python3 >/dev/null || { echo "metrics_listener.sh: needs python3" >&2; exit 2; }
WORK=$(bench_workdir metrics-listener)

{
	printf '{"transport": "local", "machines": ['
	for i in $(seq 1 "$HOSTS"); do
		[ "$i" = 1 ] || printf ','
		printf '{"name": "h%d", "address": "127.0.0.%d"}' "$i" "$i"
	done
	printf ']}\n'
} >"$WORK/local.json"
"$BIN" -v collect --config "$WORK/local.json" --output "$WORK/sweeps.jsonl" \
    --every 1h --ping-count 1 --metrics-listen 127.0.0.1:0 2>"$WORK/netprof.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 1 600); do
	grep -q 'metrics on http://127.0.0.1:' "$WORK/netprof.log" 2>/dev/null &&
	    [ "$(wc -l <"$WORK/sweeps.jsonl" 2>/dev/null || echo 0)" -ge $((HOSTS * (HOSTS - 1))) ] && break
	sleep 0.1
done
port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$WORK/netprof.log")
[ -n "$port" ] || { echo "no listener: $(cat "$WORK/netprof.log")" >&2; exit 1; }
sleep 0.5	# the sweep's exposition published

echo "/metrics listener: $HOSTS hosts ($((HOSTS * (HOSTS - 1))) pairs), $SCRAPES scrapes a step, loopback"
python3 - "$port" "$pid" "$SCRAPES" <<'PY'
import http.client, socket, sys, threading, time
port, pid, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
OM = {"Accept": "application/openmetrics-text;version=1.0.0"}

def rss_kib():
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

def scrape(headers={}, src="127.0.0.1"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                   source_address=(src, 0))
    t = time.monotonic()
    try:
        c.request("GET", "/metrics", headers=headers)
        r = c.getresponse()
        body = r.read()
        ok = r.status == 200 and len(body) > 0
    except OSError:
        ok, body = False, b""
    c.close()
    return ok, (time.monotonic() - t) * 1000, len(body)

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p * (len(v) - 1))))] if v else float("nan")

def series(label, src="127.0.0.1"):
    times, ok = [], 0
    for _ in range(n):
        good, ms, size = scrape({}, src)
        ok += good
        if good:
            times.append(ms)
    print("  %-34s %4d/%d answered  median %6.2f ms  p95 %6.2f ms"
          % (label, ok, n, pct(times, 0.5), pct(times, 0.95)))
    return pct(times, 0.5)

_, _, text_size = scrape()
_, _, om_size = scrape(OM)
print("  exposition: text %d bytes, OpenMetrics %d bytes" % (text_size, om_size))
base = series("alone")

stop = threading.Event()
reopened = [0]
def hold(src):
    conns = []
    while not stop.is_set():
        while len(conns) < 8:
            s = socket.socket()
            s.bind((src, 0))
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            conns.append(s)
        for s in list(conns):
            try:
                if s.recv(1) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                continue
            except OSError:
                pass
            s.close()
            conns.remove(s)
            reopened[0] += 1
        time.sleep(0.01)
    for s in conns:
        s.close()
holders = [threading.Thread(target=hold, args=(a,)) for a in ("127.0.0.1", "127.0.0.2")]
for t in holders:
    t.start()
time.sleep(0.5)
held = series("16 idle connections held", "127.0.0.3")
stop.set()
for t in holders:
    t.join()
print("    (idle connections closed by the listener and opened again: %d); "
      "median ratio to alone: %.2f" % (reopened[0], held / base))

before = rss_kib()
counts = [0] * 16
def scraper(i):
    end = time.monotonic() + 3
    while time.monotonic() < end:
        counts[i] += scrape(OM, "127.0.1.%d" % (i + 1))[0]
t0 = time.monotonic()
workers = [threading.Thread(target=scraper, args=(i,)) for i in range(16)]
for t in workers:
    t.start()
peak = before
while any(t.is_alive() for t in workers):
    peak = max(peak, rss_kib())
    time.sleep(0.05)
wall = time.monotonic() - t0
print("  16 clients at once (OpenMetrics): %d scrapes in %.1f s, %.0f a second"
      % (sum(counts), wall, sum(counts) / wall))
print("  netprof RSS: %d KiB before, %d KiB at most during: +%d KiB, %.2f x the OpenMetrics text"
      % (before, peak, peak - before, (peak - before) * 1024.0 / om_size))
PY
