#!/usr/bin/env python3
"""A server that dies at start the way a real one does when its model is missing: it
tries to open the weights and the FileNotFoundError traceback ends it with status 1."""
import os
import sys

print(f"pid={os.getpid()} pgid={os.getpgid(0)}", file=sys.stderr, flush=True)
print("loading model weights from /nonexistent/model.safetensors", file=sys.stderr, flush=True)
with open("/nonexistent/model.safetensors", "rb") as weights:
    weights.read()
