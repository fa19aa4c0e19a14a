#!/usr/bin/env python3
"""A server that never becomes healthy: /health answers 503 forever. It starts a child
process in its own process group (as real servers start workers), so a test can check
that prof stops the whole group. --say prints a line at start (an error a real server
logs while it keeps running, such as a worker's CUDA out-of-memory). --die-after SECONDS
makes it exit with status 3 that long after start, leaving its worker behind, as a server
whose model load crashes late does. --status makes /health answer that status instead of 503
(500: a server that is up but broken)."""
import argparse
import http.server
import os
import subprocess
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--say", default=None)
parser.add_argument("--die-after", type=float, default=None)
parser.add_argument("--status", type=int, default=503)
args = parser.parse_args()

worker = subprocess.Popen(["sleep", "300"])
print(f"pid={os.getpid()} pgid={os.getpgid(0)} worker={worker.pid}", file=sys.stderr, flush=True)
if args.say:
    print(args.say, file=sys.stderr, flush=True)
if args.die_after is not None:

    def die():
        print("model load failed late; exiting", file=sys.stderr, flush=True)
        os._exit(3)

    threading.Timer(args.die_after, die).start()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.send_response(args.status)
        self.send_header("Content-Length", "0")
        self.end_headers()


server = http.server.HTTPServer(("127.0.0.1", args.port), Handler)
server.serve_forever()
