# A fake otela node for test_node_api_caps.sh: answers GET /v1/health with a
# body of HEALTH_BYTES, GET /v1/dnt/table with a table of TABLE_IDS
# distinct PeerIDs (each listed twice), and, with DUMP=DIR, writes each
# answer to DIR too (the fuzz corpus). With STREAM_MIB, the table is
# instead STREAM_MIB MiB sent chunked, without a Content-Length (which
# curl before 8.4 does not hold to --max-filesize), a MiB at a time.
# Usage: fake_node.py PORT HEALTH_BYTES TABLE_IDS [STREAM_MIB]
import http.server
import sys

PORT, HEALTH, IDS = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
STREAM_MIB = int(sys.argv[4]) if len(sys.argv) > 4 else 0


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
          "/v1/dnt/table": b"" if STREAM_MIB else table()}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        mib = b"x" * (1 << 20)
        try:
            self.wfile.write(b'%x\r\n{"pad":"\r\n' % len(b'{"pad":"'))
            for _ in range(STREAM_MIB):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(mib), mib))
            self.wfile.write(b'2\r\n"}\r\n0\r\n\r\n')
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        if STREAM_MIB and self.path == "/v1/dnt/table":
            self.stream()
            return
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
