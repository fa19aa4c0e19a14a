#!/usr/bin/env python3
"""A small real PyTorch model server for `prof serve` on the accelerator machine.

A decoder-only transformer (embedding, N blocks of RMSNorm + attention with a KV cache +
SwiGLU MLP, LM head), random weights, served over plain HTTP with the standard library:

  GET  /health    200 {"status": "ok", ...} once the model is loaded and warmed up
  POST /generate  {"prompt": str, "max_tokens": int} -> greedy decode, JSON with tokens and timing
  GET  /generate  the same with the default prompt

Each request runs a prefill (one forward over the prompt's tokens) and `max_tokens` decode
steps (one token each, attending to the cache): GEMMs, attention, norms and elementwise
kernels, like a real LLM server, at a size that loads in seconds.

CUDA is initialised (model moved to the GPU and one warm-up request run) before the port is
opened, so a CUDA injection library such as prof's CUPTI tracer is loaded and its SIGUSR1
handler installed before /health answers. SIGINT and SIGTERM end the server through normal
interpreter exit, so atexit handlers (the tracer's final flush) run.

Runs on CPU when CUDA is absent (smaller default size), for a local smoke test:

  python3 scripts/device/serve_model.py --port 8000
  curl -s localhost:8000/health; curl -s -d '{"prompt":"hello","max_tokens":4}' localhost:8000/generate

Under prof on an H200:

  prof serve --tool cupti --server 'python3 scripts/device/serve_model.py --port 8000' \\
    --health http://127.0.0.1:8000/health --endpoint http://127.0.0.1:8000/generate --requests 50 --yes
"""
import argparse
import http.server
import json
import math
import os
import signal
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn


def log(message):
    """One line to stderr, flushed (prof reads the log while the server runs)."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(variance + self.eps)).to(x.dtype) * self.weight


class Block(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.attn_norm = RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.mlp_norm = RMSNorm(dim)
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x, cache):
        batch, length, dim = x.shape
        q, k, v = self.qkv(self.attn_norm(x)).split(dim, dim=-1)
        shape = (batch, length, self.heads, self.head_dim)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        # Prefill is causal over the prompt; a decode step's one query sees the whole cache.
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None and length > 1)
        x = x + self.out(attn.transpose(1, 2).reshape(batch, length, dim))
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        x = x + self.down(F.silu(gate) * up)
        return x, (k, v)


class TinyLM(nn.Module):
    def __init__(self, vocab, dim, heads, layers, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, hidden) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens, caches=None):
        x = self.embed(tokens)
        new_caches = []
        for index, block in enumerate(self.blocks):
            x, cache = block(x, None if caches is None else caches[index])
            new_caches.append(cache)
        return self.head(self.norm(x[:, -1:, :])), new_caches


def tokenize(prompt, vocab, min_len):
    """Bytes as token ids, repeated up to `min_len` so a short prompt still makes a real prefill."""
    ids = list(prompt.encode("utf-8")) or [0]
    while len(ids) < min_len:
        ids = ids + ids
    return [i % vocab for i in ids]


class Model:
    def __init__(self, args):
        self.device = torch.device(args.device)
        self.dtype = torch.bfloat16 if self.device.type == "cuda" else torch.float32
        torch.manual_seed(0)
        self.args = args
        # Built directly on the device: random init of ~0.5 B parameters on the CPU takes long.
        with self.device:
            self.net = TinyLM(args.vocab, args.dim, args.heads, args.layers, args.hidden)
        self.net = self.net.to(dtype=self.dtype).eval()

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    @torch.inference_mode()
    def generate(self, prompt, max_tokens):
        started = time.perf_counter()
        ids = tokenize(prompt, self.args.vocab, self.args.prompt_len)
        tokens = torch.tensor([ids], device=self.device)
        logits, caches = self.net(tokens)
        out = []
        for _ in range(max_tokens):
            next_token = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            out.append(next_token)
            logits, caches = self.net(next_token, caches)
        generated = torch.cat(out, dim=1)[0].tolist() if out else []
        self.sync()
        return {
            "prompt_tokens": len(ids),
            "tokens": generated,
            "latency_ms": (time.perf_counter() - started) * 1e3,
        }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dim", type=int, default=None, help="model width (default 2048 on cuda, 256 on cpu)")
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--layers", type=int, default=None, help="blocks (default 8 on cuda, 2 on cpu)")
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--prompt-len", type=int, default=128, help="shortest prefill, in tokens")
    parser.add_argument("--max-tokens", type=int, default=16, help="decode steps when a request gives none")
    args = parser.parse_args()
    on_cuda = args.device.startswith("cuda")
    if on_cuda and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: CUDA is not available (torch {torch.__version__})")
    args.dim = args.dim or (2048 if on_cuda else 256)
    args.layers = args.layers or (8 if on_cuda else 2)
    if args.dim % args.heads:
        parser.error(f"--dim {args.dim} is not a multiple of --heads {args.heads}")
    args.hidden = int(math.ceil(args.dim * 8 / 3 / 64) * 64)

    # SIGTERM ends the server like Ctrl-C does: through normal exit, so atexit handlers run.
    def stop_on_sigterm(signum, frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, stop_on_sigterm)

    log(f"pid={os.getpid()} pgid={os.getpgid(0)} torch {torch.__version__}")
    loading = time.perf_counter()
    model = Model(args)
    name = torch.cuda.get_device_name(model.device) if on_cuda else "cpu"
    params = sum(p.numel() for p in model.net.parameters())
    warm = model.generate("warm-up", 2)
    log(
        f"model ready on {model.device} ({name}): {params / 1e6:.0f} M parameters, dim {args.dim}, "
        f"{args.layers} layers, {model.dtype}; loaded and warmed in {time.perf_counter() - loading:.1f} s "
        f"(warm-up request {warm['latency_ms']:.1f} ms)"
    )
    served = 0

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *fmt_args):
            pass

        def reply(self, status, document):
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/health":
                self.reply(200, {"status": "ok", "device": str(model.device), "served": served})
            elif self.path == "/generate":
                self.generate({})
            else:
                self.reply(404, {"error": f"no route {self.path}"})

        def do_POST(self):
            if self.path != "/generate":
                self.reply(404, {"error": f"no route {self.path}"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except ValueError as error:
                self.reply(400, {"error": f"body is not JSON: {error}"})
                return
            self.generate(request if isinstance(request, dict) else {})

        def generate(self, request):
            nonlocal served
            prompt = str(request.get("prompt", "The quick brown fox jumps over the lazy dog"))
            try:
                max_tokens = max(0, min(int(request.get("max_tokens", args.max_tokens)), 256))
            except (TypeError, ValueError):
                self.reply(400, {"error": "max_tokens must be an integer"})
                return
            result = model.generate(prompt, max_tokens)
            served += 1
            log(f"served /generate #{served}: {result['prompt_tokens']} prompt tokens, "
                f"{len(result['tokens'])} generated, {result['latency_ms']:.1f} ms")
            self.reply(200, result)

    server = http.server.HTTPServer((args.host, args.port), Handler)
    log(f"listening on http://{args.host}:{args.port} (GET /health, POST /generate)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        log(f"stopping after {served} requests")
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
