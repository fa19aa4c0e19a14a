#!/usr/bin/env python3
"""A model-server stand-in for prof serve's tests: becomes healthy after --delay seconds,
answers GET/POST /generate (POST replies chunked, GET with Content-Length) after
--latency seconds, and logs one `served /generate` line per answered request, so a test
can compare prof's request count with the server's own. --say prints a line at start (a
warning a real server prints, such as an optional library not found)."""
import argparse
import http.server
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--delay", type=float, default=0.0)
parser.add_argument("--latency", type=float, default=0.0)
parser.add_argument("--say", default=None)
args = parser.parse_args()

print(f"pid={os.getpid()} pgid={os.getpgid(0)}", file=sys.stderr, flush=True)
if args.say:
    print(args.say, file=sys.stderr, flush=True)
time.sleep(args.delay)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def reply(self, body, chunked):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (body[:5], body[5:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def generate(self, received):
        time.sleep(args.latency)
        # Logged before the reply, so a request prof saw answered is always in the log, even
        # when the server is stopped right after; one write per line, as print() from several
        # handler threads can interleave its pieces.
        os.write(2, f"served /generate {self.command} body={received}\n".encode())
        self.reply(b'{"text": "hello from the fake model"}', chunked=self.command == "POST")

    def do_GET(self):
        if self.path == "/health":
            self.reply(b"ok", chunked=False)
        elif self.path == "/generate":
            self.generate(0)
        else:
            self.send_error(404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        received = len(self.rfile.read(length))
        if self.path == "/generate":
            self.generate(received)
        else:
            self.send_error(404)


server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
print(f"listening on 127.0.0.1:{args.port}", file=sys.stderr, flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    print("stopping on SIGINT", file=sys.stderr, flush=True)
