#!/bin/bash
# Benchmark of `netprof heatmap` at 128 hosts (or HOSTS): generates a
# synthetic bench run (N x (N-1) ordered pairs x libp2p_ping, latency,
# throughput, ~2% failed with dial backoff), then prints the generation
# time, the heatmap's time and peak memory, the page size and the time to
# first render in headless Chromium, against the targets (page <= 20 MB,
# first render <= 3 s, netprof heatmap <= 5 s), and the machine's load;
# with netprof -v's lines: the reading's threads and each step's time.
# Prints figures; asserts nothing.
# Usage: tests/perf/heatmap.sh [NETPROF_BIN] [HOSTS]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/perf/build.sh"
bin=$(bench_binary "${1:-${NETPROF_BIN:-}}") || exit 1
hosts=${2:-128}
# Kept after the run (overwritten by the next) so the page can be opened.
work=$(bench_workdir heatmap-bench)

elapsed() { echo "$1 $2" | awk '{ printf "%.2f s", $2 - $1 }'; }

t0=$(now)
node - "$hosts" "$work/measurements.jsonl" <<'JS'
const fs = require('node:fs');
const n = Number(process.argv[2]);
const out = fs.openSync(process.argv[3], 'w');
const hosts = Array.from({ length: n }, (_, i) => `h${String(i + 1).padStart(3, '0')}`);
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const ms = (ns) => Math.round(ns / 1000) / 1000;
const backoff = 'no successful samples: failed to dial: all dials failed\n  * [/ip4/198.18.0.9/tcp/19091] dial backoff';
let buf = [];
function put(r) {
  buf.push(JSON.stringify(r));
  if (buf.length >= 2000) { fs.writeSync(out, buf.join('\n') + '\n'); buf = []; }
}
hosts.forEach((s, i) => hosts.forEach((t, j) => {
  if (i === j) return;
  const base = 0.3 + Math.abs(i - j) * 0.05 + rand();
  const common = { run_id: 'bench-128', timestamp: '2026-05-03T11:37:42+00:00', source: s, target: t,
    source_peer_id: `12D3KooW${s}`, target_peer_id: `12D3KooW${t}` };
  for (const kind of ['libp2p_ping', 'latency']) {
    const fail = rand() < 0.02;
    if (fail) {
      put({ ...common, kind, ok: false, config: { count: 20, bytes: null },
        metrics: { failed_samples: 20 }, error: backoff, command: 'otela probe' });
      continue;
    }
    const f = kind === 'latency' ? 2.5 : 1;
    const samples = Array.from({ length: 20 }, () => Math.round((base * f + rand()) * 1e6)).sort((a, b) => a - b);
    const avg = samples.reduce((a, b) => a + b, 0) / 20;
    put({ ...common, kind, ok: true, config: { count: 20, bytes: null },
      metrics: { min_ns: samples[0], avg_ns: Math.round(avg), p50_ns: samples[10], p95_ns: samples[18],
        max_ns: samples[19], min_ms: ms(samples[0]), avg_ms: ms(avg), p50_ms: ms(samples[10]),
        p95_ms: ms(samples[18]), max_ms: ms(samples[19]), samples_ns: samples, failed_samples: 0 },
      error: null, command: 'otela probe' });
  }
  const mbps = Math.round((200 + 800 * rand()) * 10) / 10;
  put({ ...common, kind: 'throughput', ok: true, config: { count: 3, bytes: 10485760 },
    metrics: { bytes_received: 31457280, elapsed_ns: Math.round(31457280 * 8 / mbps * 1000), mbps,
      iterations: [1, 2, 3].map(() => ({ bytes_received: 10485760, elapsed_ns: Math.round(10485760 * 8 / mbps * 1000), mbps })),
      failed_samples: 0 }, error: null, command: 'otela probe' });
}));
fs.writeSync(out, buf.join('\n') + '\n');
fs.closeSync(out);
JS
t1=$(now)
/usr/bin/time -f %M -o "$work/peak_kib" "$bin" -v heatmap --input "$work/measurements.jsonl" \
    --output "$work/heatmap.html" --title "synthetic $hosts hosts" 2>"$work/steps.log"
t2=$(now)

echo "hosts:              $hosts ($((hosts * (hosts - 1))) pairs x 3 kinds)"
echo "input:              $(wc -l <"$work/measurements.jsonl") records, $(du -m "$work/measurements.jsonl" | cut -f1) MB"
echo "generation:         $(elapsed "$t0" "$t1")"
echo "netprof heatmap:    $(elapsed "$t1" "$t2") (target <= 5 s), peak $(awk '{ printf "%.0f MB", $1 / 1024 }' "$work/peak_kib")"
# -v: the reading's threads, then each step's time.
sed -n 's/^\[[0-9.]*\] -: //p' "$work/steps.log" |
    sed 's|^[^ ]*measurements.jsonl: |reading:            |; s/^heatmap: /  /'
echo "page size:          $(stat -c %s "$work/heatmap.html" | awk '{ printf "%.2f MB (target <= 20 MB)", $1 / 1048576 }')"
if [ -x /usr/bin/chromium ] && [ -d "$src/tests/browser/node_modules/playwright-core" ]; then
	echo "first render:       $(node "$src/tests/browser/first-render.mjs" "$work/heatmap.html") (target <= 3 s)"
else
	echo "first render:       skipped (run tests/browser/install.sh)"
fi
echo "load average:       $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "page:               $work/heatmap.html"
