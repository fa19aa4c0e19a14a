#!/usr/bin/env python3
"""Ops of known shapes under torch.profiler(record_shapes=True) (issue #56), so prof's achieved
FLOP/s and bytes/s can be checked against a hand computation, and a JAX profile with its
Perfetto trace beside the XSpace (issue #51).

  python3 shapes_clients.py torch OUT_DIR   # OUT_DIR/shapes.pt.trace.json (+ shapes.expected.json)
  python3 shapes_clients.py jax OUT_DIR     # OUT_DIR/jax/plugins/profile/<run>/*.xplane.pb + perfetto

The expected file holds, per op, the FLOPs and bytes computed by hand from the shapes and the
mean time CUDA events measured outside the profiler: an independent view of the same work.
"""
import json
import os
import sys
import time


def torch_ops(out):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    dev = "cuda"
    bf, fp, f32 = torch.bfloat16, torch.float16, torch.float32
    torch.backends.cuda.matmul.allow_tf32 = False
    a8 = torch.randn(8192, 8192, device=dev, dtype=bf)
    b8 = torch.randn(8192, 8192, device=dev, dtype=bf)
    a4 = torch.randn(4096, 4096, device=dev, dtype=fp)
    b4 = torch.randn(4096, 4096, device=dev, dtype=fp)
    x = torch.randn(2048, 4096, device=dev, dtype=bf)
    w = torch.randn(11008, 4096, device=dev, dtype=bf)
    bias = torch.randn(11008, device=dev, dtype=bf)
    ba = torch.randn(32, 1024, 128, device=dev, dtype=bf)
    bb = torch.randn(32, 128, 1024, device=dev, dtype=bf)
    s32a = torch.randn(2048, 2048, device=dev, dtype=f32)
    s32b = torch.randn(2048, 2048, device=dev, dtype=f32)
    img = torch.randn(64, 64, 56, 56, device=dev, dtype=bf).to(memory_format=torch.channels_last)
    cw = torch.randn(64, 64, 3, 3, device=dev, dtype=bf).to(memory_format=torch.channels_last)
    q = torch.randn(8, 16, 2048, 128, device=dev, dtype=bf)
    k = torch.randn(8, 16, 2048, 128, device=dev, dtype=bf)
    v = torch.randn(8, 16, 2048, 128, device=dev, dtype=bf)
    h = torch.randn(8192, 4096, device=dev, dtype=bf)
    lnw = torch.ones(4096, device=dev, dtype=bf)
    lnb = torch.zeros(4096, device=dev, dtype=bf)
    e1 = torch.randn(64 * 1024 * 1024, device=dev, dtype=bf)
    e2 = torch.randn(64 * 1024 * 1024, device=dev, dtype=bf)
    f8a = torch.randn(8192, 8192, device=dev).to(torch.float8_e4m3fn)
    f8b = torch.randn(8192, 8192, device=dev).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device=dev)

    ops = {
        # name: (callable, flops, bytes)
        "mm_bf16_8192": (lambda: torch.mm(a8, b8), 2 * 8192**3, 3 * 8192 * 8192 * 2),
        "mm_fp16_4096": (lambda: torch.mm(a4, b4), 2 * 4096**3, 3 * 4096 * 4096 * 2),
        "linear_bf16": (lambda: F.linear(x, w, bias), 2 * 2048 * 4096 * 11008,
                        (2048 * 4096 + 11008 * 4096 + 11008 + 2048 * 11008) * 2),
        "bmm_bf16": (lambda: torch.bmm(ba, bb), 2 * 32 * 1024 * 1024 * 128,
                     (2 * 32 * 1024 * 128 + 32 * 1024 * 1024) * 2),
        "mm_fp32_2048": (lambda: torch.mm(s32a, s32b), 2 * 2048**3, 3 * 2048 * 2048 * 4),
        "conv_bf16": (lambda: F.conv2d(img, cw, padding=1), 2 * 64 * 56 * 56 * 64 * 64 * 9,
                      (2 * 64 * 64 * 56 * 56 + 64 * 64 * 9) * 2),
        "sdpa_flash_causal": (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                              4 * 8 * 16 * 2048 * 2048 * 128 // 2, 4 * 8 * 16 * 2048 * 128 * 2),
        "sdpa_flash": (lambda: F.scaled_dot_product_attention(q, k, v),
                       4 * 8 * 16 * 2048 * 2048 * 128, 4 * 8 * 16 * 2048 * 128 * 2),
        "layer_norm": (lambda: F.layer_norm(h, (4096,), lnw, lnb), 0, 2 * 8192 * 4096 * 2),
        "softmax": (lambda: torch.softmax(h, dim=-1), 0, 2 * 8192 * 4096 * 2),
        "add": (lambda: e1 + e2, 0, 3 * e1.numel() * 2),
        "scaled_mm_fp8": (lambda: torch._scaled_mm(f8a, f8b, scale_a=one, scale_b=one,
                                                    out_dtype=bf), 2 * 8192**3,
                          2 * 8192 * 8192 + 8192 * 8192 * 2),
    }
    expected = {}
    for name, (fn, flops, nbytes) in ops.items():
        try:
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(10):
                fn()
            e.record()
            torch.cuda.synchronize()
            ms = s.elapsed_time(e) / 10
            expected[name] = {"flops": flops, "bytes": nbytes, "event_ms": ms,
                              "tflops": flops / ms / 1e9, "tbps": nbytes / ms / 1e9}
            print(f"{name:20s} {ms:8.3f} ms  {flops / ms / 1e9:8.1f} TFLOP/s  {nbytes / ms / 1e9:6.2f} TB/s")
        except Exception as err:  # an op this build lacks is left out, said
            print(f"{name}: {type(err).__name__}: {err}")
    from torch.profiler import profile, ProfilerActivity, record_function

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
        for step in range(3):
            with record_function(f"ProfilerStep#{step}"):
                for name in expected:
                    ops[name][0]()
            torch.cuda.synchronize()
    p.export_chrome_trace(os.path.join(out, "shapes.pt.trace.json"))
    props = torch.cuda.get_device_properties(0)
    meta = {"device": props.name, "sms": props.multi_processor_count, "torch": torch.__version__,
            "ops": expected}
    with open(os.path.join(out, "shapes.expected.json"), "w") as f:
        json.dump(meta, f, indent=1)


def jax_ops(out):
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    a = jax.random.normal(key, (4096, 4096), jnp.bfloat16)
    b = jax.random.normal(key, (4096, 4096), jnp.bfloat16)

    @jax.jit
    def step(a, b):
        c = a @ b
        return jax.nn.softmax(c, axis=-1) @ b

    step(a, b).block_until_ready()
    d = os.path.join(out, "jax")
    with jax.profiler.trace(d, create_perfetto_trace=True):
        for _ in range(5):
            step(a, b).block_until_ready()
    print("jax", jax.__version__, [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs])


if __name__ == "__main__":
    t = time.time()
    {"torch": torch_ops, "jax": jax_ops}[sys.argv[1]](sys.argv[2])
    print(f"{sys.argv[1]} done in {time.time() - t:.1f} s")
