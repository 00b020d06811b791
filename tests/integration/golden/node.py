# The golden test's otela node: the API of a node that answers with fixed
# measurements (tests/fixtures/node's), its table every peer of its
# cfg.yaml's bootstrap list, each Connected (peers_status) with no circuit
# open (/metrics), /v1/self its own PeerID (GOLDEN_HOST's, as the
# contract's node answers it); a latency probe to the last peer fails. Its
# libp2p port, on its host's address (GOLDEN_STATE/hosts), takes
# connections and closes them, so that bench's reach checks find it.
# Usage: node.py CFG PEERS --config-dir DIR (PEERS: "host peer_id" lines,
# the last failing; DIR is the node's, for teardown to know it by)
import http.server
import json
import os
import socket
import sys
import threading

cfg = json.load(open(sys.argv[1]))
lines = [line.split() for line in open(sys.argv[2]) if line.strip()]
peers = [line[1] for line in lines]
self_id = dict(lines).get(os.environ.get("GOLDEN_HOST", ""), "")
fixtures = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                        "node")


def fixture(name):
    with open(os.path.join(fixtures, name)) as f:
        return json.load(f)


def table():
    ids = [a.rsplit("/p2p/", 1)[1] for a in cfg["bootstrap"]["static"]]
    return {i: {"id": i, "connected": True, "status": "connected"}
            for i in ids}


def peers_status():
    return {"peers": [{"id": i, "connectedness": "Connected"}
                      for i in table()]}


METRICS = """# TYPE libp2p_swarm_connections_opened_total counter
libp2p_swarm_connections_opened_total{dir="outbound",transport="tcp"} 2
libp2p_swarm_connections_opened_total{dir="inbound",transport="tcp"} 2
"""


def listen_libp2p():
    hosts = dict(line.split()[::-1] for line in
                 open(os.path.join(os.environ["GOLDEN_STATE"], "hosts")))
    s = socket.socket()
    # another checkout's golden test may run at once, on the same
    # addresses and port: both accept (either answers a reach check)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind((hosts[os.environ["GOLDEN_HOST"]], int(cfg["tcpport"])))
    s.listen(16)
    while True:
        s.accept()[0].close()


def probe(req):
    kind = req["kind"]
    if kind == "latency" and req["target"] == peers[-1]:
        answer = fixture("probe_latency_failed.json")
    else:
        answer = fixture("probe_%s_ok.json" % kind)
    answer["target"] = req["target"]
    answer["config"] = {"count": req["count"], "bytes": req["bytes"],
                        "timeout_ms": req["timeout_ms"]}
    return answer


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/v1/health":
            self.answer({"status": "ok"})
        elif self.path == "/v1/dnt/table":
            self.answer(table())
        elif self.path == "/v1/self":
            self.answer({"id": self_id})
        elif self.path == "/v1/dnt/peers_status":
            self.answer(peers_status())
        elif self.path == "/metrics":
            data = METRICS.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_error(404)

    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/v1/probe/run":
            self.answer(probe(req))
        elif self.path == "/v1/probe/holepunch":
            self.answer({"ok": True, "target": req["target"],
                         "connectedness": "Connected", "attempts": 1})
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


threading.Thread(target=listen_libp2p, daemon=True).start()
http.server.ThreadingHTTPServer(("127.0.0.1", int(cfg["port"])),
                                Handler).serve_forever()
