#!/usr/bin/env bash
# The /metrics listener against a local user's connections, no lab (the
# local transport pings 127.0.0.1 and 127.0.0.2): 16 idle connections, 8
# from 127.0.0.1 and 8 from 127.0.0.2, take every slot, and a scrape still
# answers (the oldest idle one makes room); once they are closed, scrapes
# answer (the listener once stopped accepting for good); a ninth
# connection from one address closes that address's oldest; a request
# trickled a byte at a time is closed at its deadline though every byte
# came within the idle timeout; OpenMetrics and the text format stay
# whole through all that. netprof is stopped by PID.
. "$(dirname "$0")/lib.sh"
require_cmd curl python3 promtool

T=$NETPROF_TEST_TMP/metrics-listener
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1

cat >local.json <<'JSON'
{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1"},
                                    {"name": "b", "address": "127.0.0.2"}]}
JSON
"$NETPROF_BIN" -v collect --config local.json --output sweeps.jsonl --every 1s \
    --ping-count 1 --metrics-listen 127.0.0.1:0 2>netprof.log &
np_pid=$!
at_exit "kill $np_pid 2>/dev/null; wait $np_pid 2>/dev/null"
listening() { grep -q 'metrics on http://127.0.0.1:' netprof.log; }
wait_for 20 listening || fail "no listener: $(cat netprof.log)"
port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' netprof.log)
swept() { grep -Eq '"sweep": ?1[,}]' sweeps.jsonl 2>/dev/null; }
wait_for 20 swept || fail "no sweep: $(tail -5 netprof.log)"

# The client: each check prints "name result"; the trickled request runs
# on a thread beside the per-address ones (its deadline is 10 s).
python3 - "$port" >client.out 2>client.err <<'PY' || fail "client: $(cat client.err)"
import socket, subprocess, sys, threading, time
port = int(sys.argv[1])

def scrape(src="127.0.0.1"):
    return subprocess.run(["curl", "-s", "-m", "5", "--interface", src,
        "-o", "/dev/null", "-w",
        "%{http_code}", "http://127.0.0.1:%d/metrics" % port],
        capture_output=True, text=True).stdout

def idle(src):
    s = socket.socket()
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s

def closed_by_server(s, wait):
    s.settimeout(wait)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True

trickle = {}
def trickled():
    s = idle("127.0.0.4")
    s.settimeout(0.5)
    start = time.monotonic()
    header = b"GET /metrics HTTP/1.1\r\nX-Pad: " + b"a" * 100
    for i in range(len(header)):      # a byte every 0.5 s: 50 s at most
        try:
            s.send(header[i:i + 1])
            if s.recv(1) == b"":
                break
        except socket.timeout:
            continue
        except OSError:
            break
    else:
        trickle["result"] = "never closed"
        return
    trickle["result"] = "closed after %d bytes" % i

print("before", scrape())
conns = [idle(src) for src in ("127.0.0.1", "127.0.0.2") for _ in range(8)]
time.sleep(0.3)
print("during", scrape("127.0.0.5"))
print("oldest-idle-closed", closed_by_server(conns[0], 3))
for s in conns:
    s.close()
time.sleep(0.3)
print("after", scrape())
time.sleep(1.5)
print("later", scrape())
t = threading.Thread(target=trickled)
t.start()

per = [idle("127.0.0.3") for _ in range(8)]
time.sleep(0.3)
print("eight-kept", not closed_by_server(per[0], 0.5))
per.append(idle("127.0.0.3"))
print("ninth-closes-first", closed_by_server(per[0], 3))
print("ninth-open", not closed_by_server(per[8], 0.5))
for s in per:
    s.close()
t.join()
print("trickle", trickle["result"])
PY
cat client.out
assert_file_contains client.out "before 200"
assert_file_contains client.out "during 200"
assert_file_contains client.out "oldest-idle-closed True"
assert_file_contains client.out "after 200"
assert_file_contains client.out "later 200"
assert_file_contains client.out "eight-kept True"
assert_file_contains client.out "ninth-closes-first True"
assert_file_contains client.out "ninth-open True"
assert_file_contains client.out "trickle closed after"
assert_file_contains netprof.log "no whole request in time"
assert_file_contains netprof.log "connection from 127.0.0.1 closed: the oldest idle connection, for a new one"
assert_file_contains netprof.log "connection from 127.0.0.3 closed: the oldest idle of its address's connections, for a new one"

# The answers are whole in both formats after all that.
curl -sf "http://127.0.0.1:$port/metrics" >text.prom || fail "GET /metrics failed"
assert_status 0 promtool check metrics <text.prom
curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0' \
    "http://127.0.0.1:$port/metrics" >om.txt || fail "OpenMetrics GET failed"
assert_eq '# EOF' "$(tail -n 1 om.txt)"
assert_file_contains om.txt '# TYPE netprof_sweeps counter'
kill -0 $np_pid || fail "netprof is gone: $(tail -5 netprof.log)"
test_pass
