#!/usr/bin/env python3
"""A server that plays the part of a CUDA server traced by prof's CUPTI tracer, for
`prof serve --tool cupti` without a GPU. It keeps the tracer's contract as the injection
library does (crates/cupti-tracer): it logs the tracer's environment, handles SIGUSR1 by
opening and then closing the window (logging each toggle in order with the requests it
served), and at exit writes its trace into $PROF_CUPTI_OUT as prof-cupti-<pid>.pcupti. The
trace is a byte copy of a real recording ($FAKE_CUPTI_TRACE, one of
tests/fixtures/nvidia/h200-cupti), since no CUDA runs here."""
import http.server
import os
import shutil
import signal
import sys


def log(line):
    os.write(2, (line + "\n").encode())


port = int(sys.argv[sys.argv.index("--port") + 1])
log(f"pid={os.getpid()} pgid={os.getpgid(0)}")
for name in ("CUDA_INJECTION64_PATH", "PROF_CUPTI_SIGNAL", "PROF_CUPTI_OUT"):
    log(f"env {name}={os.environ.get(name, '')}")
toggles = iter(["opened", "closed", "already closed"])
signal.signal(signal.SIGUSR1, lambda *_: log(f"SIGUSR1: capture window {next(toggles, 'already closed')}"))


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def do_GET(self):
        if self.path == "/generate":
            log("served /generate")
        body = b"ok"
        self.send_response(200 if self.path in ("/health", "/generate") else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.HTTPServer(("127.0.0.1", port), Handler)
try:
    server.serve_forever()
except KeyboardInterrupt:
    out = os.environ["PROF_CUPTI_OUT"]
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(os.environ["FAKE_CUPTI_TRACE"], os.path.join(out, f"prof-cupti-{os.getpid()}.pcupti"))
    log("trace written at exit")
