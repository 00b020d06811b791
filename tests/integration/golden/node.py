# The golden test's otela node: the API of a node that answers with fixed
# measurements (tests/fixtures/node's), its table every peer of its
# cfg.yaml's bootstrap list, /v1/self its own PeerID (GOLDEN_HOST's, as
# the contract's node answers it); a latency probe to the last peer fails.
# Usage: node.py CFG PEERS --config-dir DIR (PEERS: "host peer_id" lines,
# the last failing; DIR is the node's, for teardown to know it by)
import http.server
import json
import os
import sys

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


http.server.ThreadingHTTPServer(("127.0.0.1", int(cfg["port"])),
                                Handler).serve_forever()
