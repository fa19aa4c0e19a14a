#!/usr/bin/env python3
"""Clients for issue #49 (one answer you can trust): each a real workload whose right answer an
engineer can say before prof runs (the machine has no network: random weights, built here).

  python3 answer_clients.py NAME

  load-then-gemm  12 s of host-side loading (a model built on the CPU), then large bf16 GEMMs for
                  ~8 s: the device is busy once the work starts; the answer is the GEMM (a deep
                  dive of it), never a fill kernel of the load
  gemm-now        large bf16 GEMMs from the first second for ~8 s: one kernel dominates a busy
                  device; its deep dive says it runs at the tensor pipe's peak
  tiny            ~8 s of tiny elementwise kernels launched one by one: the device waits for
                  launches (capture as a graph)
  compiled-decode a torch.compile'd small decoder stepping one token at a time (default mode):
                  fewer, fused kernels, but the device still idles between launches
  jax-mlp         a jitted JAX MLP on a batch large enough to keep the device busy with a deep
                  launch queue: not launch-bound, whatever its kernel lengths
  compiled-trace FILE  the compiled decoder's steps under torch.profiler (CPU + CUDA), exported
                  as a Chrome trace to FILE: Inductor's Triton launch records write the launch
                  grid as text (`"grid": "grid(...)"`), a fixture for the torch-trace reader
  jax-trace DIR   the jitted MLP's steps under jax.profiler.trace(DIR): the XSpace protobuf
                  (`*.xplane.pb`) and the trace JSON JAX writes beside it, fixtures for #51
"""
import sys
import time


def log(text):
    print(text, flush=True)


def gemms(seconds, n=8192):
    import torch
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    end = time.time() + seconds
    steps = 0
    while time.time() < end:
        for _ in range(10):
            c = a @ b
        torch.cuda.synchronize()
        steps += 10
    log(f"gemm: {steps} GEMMs of {n}^3 in {seconds} s ({c.shape})")


def load_then_gemm():
    import torch
    t = time.time()
    # The load: a CPU-side model build (weights initialised on the host) until 12 s have passed.
    layers = []
    while time.time() - t < 12:
        layers.append(torch.nn.Linear(2048, 2048))
    torch.zeros(1, device="cuda").fill_(1.0)
    log(f"load: {len(layers)} layers built on the CPU in {time.time() - t:.1f} s")
    gemms(8)


def gemm_now():
    gemms(8)


def tiny():
    import torch
    x = torch.zeros(256, device="cuda")
    end = time.time() + 8
    n = 0
    while time.time() < end:
        for _ in range(1000):
            x.add_(1.0)
        n += 1000
    torch.cuda.synchronize()
    log(f"tiny: {n} launches of a 256-element add")


def compiled_model():
    import torch
    torch.manual_seed(0)
    d = 1024
    layers = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.LayerNorm(d), torch.nn.Linear(d, 4 * d),
                                                       torch.nn.GELU(), torch.nn.Linear(4 * d, d))
                                   for _ in range(8)]).cuda().to(torch.bfloat16).eval()
    return torch.compile(layers), torch.randn(1, d, device="cuda", dtype=torch.bfloat16)


def compiled_decode():
    import torch
    step, x = compiled_model()
    with torch.no_grad():
        for _ in range(3):
            step(x)
        torch.cuda.synchronize()
        t = time.time()
        n = 0
        while time.time() - t < 8:
            x = step(x).clamp(-1, 1)
            n += 1
        torch.cuda.synchronize()
    log(f"compiled-decode: {n} steps in {time.time() - t:.1f} s")


def jax_mlp(trace_dir=None):
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(0)
    d = 4096
    w = [jax.random.normal(key, (d, d), dtype=jnp.bfloat16) * 0.01 for _ in range(6)]

    @jax.jit
    def mlp(x, w):
        for m in w:
            x = jax.nn.gelu(x @ m)
        return x

    x = jax.random.normal(key, (2048, d), dtype=jnp.bfloat16)
    mlp(x, w).block_until_ready()
    if trace_dir:
        # A small window: 4 steps, so the fixture stays small.
        with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
            for _ in range(4):
                x = mlp(x, w)
            x.block_until_ready()
        log(f"jax-trace: {trace_dir} (jax {jax.__version__})")
        return
    t = time.time()
    n = 0
    while time.time() - t < 8:
        for _ in range(20):
            x = mlp(x, w)
        x.block_until_ready()
        n += 20
    log(f"jax-mlp: {n} steps in {time.time() - t:.1f} s")


def compiled_trace(path):
    import torch
    step, x = compiled_model()
    with torch.no_grad():
        for _ in range(3):
            step(x)
        torch.cuda.synchronize()
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as prof:
            for _ in range(5):
                x = step(x).clamp(-1, 1)
            torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    log(f"compiled-trace: {path} (torch {torch.__version__})")


if __name__ == "__main__":
    if sys.argv[1] == "compiled-trace":
        compiled_trace(sys.argv[2])
        sys.exit()
    if sys.argv[1] == "jax-trace":
        jax_mlp(sys.argv[2])
        sys.exit()
    {
        "load-then-gemm": load_then_gemm,
        "gemm-now": gemm_now,
        "tiny": tiny,
        "compiled-decode": compiled_decode,
        "jax-mlp": jax_mlp,
    }[sys.argv[1]]()
