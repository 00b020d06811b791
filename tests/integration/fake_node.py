# A fake otela node for test_node_api_caps.sh: answers GET /v1/health with a
# body of HEALTH_BYTES, GET /v1/dnt/table with a table of TABLE_IDS
# distinct PeerIDs (each listed twice), and, with DUMP=DIR, writes each
# answer to DIR too (the fuzz corpus). Usage: fake_node.py PORT HEALTH_BYTES
# TABLE_IDS
import http.server
import sys

PORT, HEALTH, IDS = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def peer_id(i):
    # 12D3KooW + 44 base58 characters, distinct per i
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    s = ""
    for _ in range(44):
        s += alphabet[i % 58]
        i //= 58
    return "12D3KooW" + s


def table():
    rows = []
    for i in range(IDS):
        p = peer_id(i)
        rows.append('{"peer":"%s","addrs":["/ip4/198.18.0.2/tcp/1"],'
                    '"via":"%s"}' % (p, p))
    return ('{"peers":[' + ",".join(rows) + ']}').encode()


BODIES = {"/v1/health": b'{"status":"ok","pad":"' + b"x" * HEALTH + b'"}',
          "/v1/dnt/table": table()}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = BODIES.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
