#!/usr/bin/env python3
"""The diagnosis zoo, second round (issue #50): shapes people run whose answer an engineer knows
before any profiler runs. Random weights, no network; each is traced whole by prof's CUPTI
tracer from scripts/device/record_zoo2.sh.

  python3 zoo2_clients.py NAME

Names, and the answer an engineer gives:
  resnet50-nchw-amp  ResNet-50 training, bf16 autocast, NCHW: cuDNN transposes every conv's
                     input and output (nchwToNhwc/nhwcToNchw) -> "use channels_last"
  resnet50-cl-amp    the same in channels_last: no layout transposes; conv is the top family
  prefill-math       Llama prefill (batch 4 x 2048 tokens), SDPA forced to its math backend:
                     QK^T GEMM + softmax + PV GEMM unfused -> "use a fused attention kernel"
  prefill-flash      the same with SDPA's flash backend: attention fused, GEMMs lead
  prefill-eager      the same with attn_implementation="eager" (matmul + softmax): unfused
  starved-loader     an MLP training step fed by a slow CPU-side batch producer: the device
                     idles between steps -> "the input pipeline starves the device"
  reduce-overhead    a decode-shaped block stack under torch.compile(mode="reduce-overhead"):
                     CUDA graphs replayed, few launches -> not launch-bound
  prefill-efficient  the prefill with SDPA's memory-efficient backend: attention fused
  prefill-cudnn      the prefill with SDPA's cuDNN backend: attention fused
  unet-gn            a diffusion-style UNet block stack (conv + GroupNorm + SiLU + self-attention),
                     bf16 training step, channels_last: conv and GroupNorm lead, no layout finding
  recsys             an embedding-heavy recommender step (EmbeddingBag tables + MLP, sparse
                     lookups): index/gather and the optimizer lead, GEMMs small
  jax-attention      jitted JAX attention (QK^T, softmax, .V as einsums, bf16): XLA fuses it
                     (cuDNN fused attention or a fused softmax between dots)
  jax-transformer    a jitted 4-layer transformer (einsum attention, layer norm, GELU MLP), bf16,
                     batch 4 x 1024 tokens: unfused attention (XLA's softmax between dots, 4 a step)
  flex-attention     torch FlexAttention (compiled, causal block mask), 4 x 16 heads x 2048: the
                     attention runs as one fused Triton kernel -> attention family, nothing unfused
  fp8-decode         batch-16 decode-shaped MLP stack with FP8 weights (torch._scaled_mm) and
                     per-token activation quantization: launch-bound, quantize prep beside the GEMMs
  grouped-moe        a MoE FFN (8 experts, 4096 tokens, top-1) through torch._grouped_mm: the
                     experts' GEMMs as grouped GEMMs, routing (argsort/bincount/gather) beside them
  graph-replay       a decode-shaped 24-layer stack captured once in a torch.cuda.CUDAGraph and
                     replayed: launches are not the limit; small GEMMs lead
  jax-conv           a jitted JAX conv net (8 conv + batch-norm-as-ops + ReLU blocks) in NCHW
                     dimension numbers, bf16, batch 32 at 112 px, forward and backward: conv
                     leads; XLA lays the convs out NHWC itself, so transposes at its boundaries
                     (a layout finding if they reach 5 %)
  int4-decode        batch-1 decode-shaped MLP stack with int4 weight-only GEMMs
                     (torch._weight_int4pack_mm, tinygemm), 16 layers of 4096: launch-bound,
                     the int4 matrix-vector kernels lead
  long-prefill       Llama prefill of one 16,384-token sequence (2 layers, SDPA flash): the
                     attention kernel is most of the time (S^2 work): the work itself
  int8-dequant       batch-1 decode-shaped stack with int8 weights dequantized to bf16 before
                     every matmul (w.to(bf16) * scale): the dequantization, not the GEMV, is the
                     time -> use a fused int8 weight-only kernel
  int8-packed        the same through torch._weight_int8pack_mm (one fused kernel a linear):
                     launch-bound
  jax-train-attention  a jitted JAX training step of a 2-layer pre-norm transformer (einsum
                     attention, head width 128, 2 x 2048 tokens): attention unfused forward and
                     backward (the softmax and its gradient as reductions between dots)
  jax-cudnn-attention  the jax-transformer shape with jax.nn.dot_product_attention(implementation=
                     "cudnn"): attention fused (cuDNN flash), no unfused attention
  jax-ln-mlp-256/512 an MLP of square d x d layers, each x = norm(x + gelu(x @ w)), 131,072 tokens:
                     no attention; the layer norms sit between GEMMs (a control for the rule that
                     knows a softmax by its cost)
  manual-softmax     eager PyTorch attention with the softmax written out (amax, exp, sum, div:
                     no kernel named softmax), 4 x 16 heads x 2048, head width 128: unfused
  jax-vit            ViT-B/16 shapes (12 layers, 197 tokens, width 768, 12 heads of 64), batch 64,
                     jitted forward with einsum attention: unfused attention (XLA's softmax)
"""
import sys
import time


def _torch():
    import torch

    torch.manual_seed(0)
    return torch


def _decode_steps(label, step, x, steps=50, warmup=3):
    """Warm-up calls of `step`, then `steps` timed ones feeding each its output."""
    import torch

    for _ in range(warmup):
        step(x)
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(steps):
        x = step(x)
    torch.cuda.synchronize()
    print(f"{label}: {steps} steps in {time.time() - t:.3f} s", flush=True)


def _resnet50(channels_last):
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(num_classes=100).cuda().train()
    x = torch.randn(64, 3, 160, 160, device="cuda")
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    y = torch.randint(0, 100, (64,), device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    t = time.time()
    for _ in range(12):
        step()
    torch.cuda.synchronize()
    print(f"resnet50 channels_last={channels_last}: 12 steps in {time.time() - t:.3f} s", flush=True)


def _prefill(attn, backend=None, kv_heads=8):
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
                         num_attention_heads=16, num_key_value_heads=kv_heads, max_position_embeddings=4096)
    model = LlamaForCausalLM._from_config(config, attn_implementation=attn, dtype=torch.bfloat16).cuda().eval()
    ids = torch.randint(0, 32000, (4, 2048), device="cuda")
    import contextlib

    def context():
        # A fresh context each forward: sdpa_kernel's context manager cannot be entered twice.
        if backend is None:
            return contextlib.nullcontext()
        from torch.nn.attention import SDPBackend, sdpa_kernel

        return sdpa_kernel(getattr(SDPBackend, backend))

    t = time.time()
    with torch.no_grad():
        for _ in range(6):
            with context():
                model(input_ids=ids, use_cache=False)
    torch.cuda.synchronize()
    print(f"prefill attn={attn} backend={backend}: 6 forwards in {time.time() - t:.3f} s", flush=True)


def starved_loader():
    torch = _torch()
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def batch():
        # A slow CPU-side transform, as a dataset's __getitem__ with decoding and augmentation.
        x = torch.randn(256, 1024)
        for _ in range(30):
            x = torch.tanh(x * 1.01)
        time.sleep(0.02)
        return x.to("cuda")

    t = time.time()
    for _ in range(40):
        x = batch()
        loss = model(x).square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"starved loader: 40 steps in {time.time() - t:.3f} s", flush=True)


def reduce_overhead():
    torch = _torch()

    class Block(torch.nn.Module):
        def __init__(self, hidden=1024):
            super().__init__()
            self.norm = torch.nn.RMSNorm(hidden)
            self.up = torch.nn.Linear(hidden, 4 * hidden, bias=False)
            self.down = torch.nn.Linear(4 * hidden, hidden, bias=False)

        def forward(self, x):
            return x + self.down(torch.nn.functional.silu(self.up(self.norm(x))))

    model = torch.nn.Sequential(*[Block() for _ in range(8)]).cuda().to(torch.bfloat16).eval()
    step = torch.compile(model, mode="reduce-overhead")
    x = torch.randn(1, 1, 1024, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        for _ in range(5):
            step(x)
        torch.cuda.synchronize()
        t = time.time()
        for _ in range(300):
            y = step(x)
        torch.cuda.synchronize()
    print(f"reduce-overhead: 300 steps in {time.time() - t:.3f} s {tuple(y.shape)}", flush=True)


def unet_gn():
    torch = _torch()

    class Block(torch.nn.Module):
        def __init__(self, c=128):
            super().__init__()
            self.n1, self.c1 = torch.nn.GroupNorm(32, c), torch.nn.Conv2d(c, c, 3, padding=1)
            self.n2, self.c2 = torch.nn.GroupNorm(32, c), torch.nn.Conv2d(c, c, 3, padding=1)
            self.na, self.attn = torch.nn.GroupNorm(32, c), torch.nn.MultiheadAttention(c, 4, batch_first=True)

        def forward(self, x):
            h = self.c1(torch.nn.functional.silu(self.n1(x)))
            x = x + self.c2(torch.nn.functional.silu(self.n2(h)))
            b, c, hh, ww = x.shape
            t = self.na(x).flatten(2).transpose(1, 2)
            a, _ = self.attn(t, t, t, need_weights=False)
            return x + a.transpose(1, 2).reshape(b, c, hh, ww)

    model = torch.nn.Sequential(*[Block() for _ in range(4)]).cuda().to(memory_format=torch.channels_last)
    x = torch.randn(16, 128, 32, 32, device="cuda").to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    t = time.time()
    for _ in range(10):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"unet-gn: 10 steps in {time.time() - t:.3f} s", flush=True)


def recsys():
    torch = _torch()
    tables = torch.nn.ModuleList([torch.nn.EmbeddingBag(200_000, 64, mode="sum") for _ in range(16)]).cuda()
    mlp = torch.nn.Sequential(torch.nn.Linear(16 * 64 + 13, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda()
    opt = torch.optim.Adagrad(list(tables.parameters()) + list(mlp.parameters()), lr=0.01)
    t = time.time()
    for _ in range(20):
        idx = [torch.randint(0, 200_000, (2048 * 20,), device="cuda") for _ in tables]
        offsets = torch.arange(0, 2048 * 20, 20, device="cuda")
        dense = torch.randn(2048, 13, device="cuda")
        feats = torch.cat([e(i, offsets) for e, i in zip(tables, idx)] + [dense], dim=1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(mlp(feats).squeeze(1), torch.rand(2048, device="cuda"))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"recsys: 20 steps in {time.time() - t:.3f} s", flush=True)


def jax_attention():
    import jax
    import jax.numpy as jnp

    b, h, s, d = 4, 16, 2048, 64
    key = jax.random.PRNGKey(0)
    q, k, v = (jax.random.normal(kk, (b, h, s, d), dtype=jnp.bfloat16) for kk in jax.random.split(key, 3))

    @jax.jit
    def attention(q, k, v):
        scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d).astype(jnp.bfloat16)
        mask = jnp.tril(jnp.ones((s, s), dtype=bool))
        scores = jnp.where(mask, scores, jnp.finfo(jnp.bfloat16).min)
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores.astype(jnp.float32)).astype(jnp.bfloat16), v)

    attention(q, k, v).block_until_ready()
    t = time.time()
    for _ in range(20):
        out = attention(q, k, v)
    out.block_until_ready()
    print(f"jax attention: 20 calls in {time.time() - t:.3f} s", flush=True)


def jax_transformer():
    import jax
    import jax.numpy as jnp

    b, s_, d, h, layers = 4, 1024, 1024, 16, 4
    keys = jax.random.split(jax.random.PRNGKey(0), 6 * layers + 1)
    params = [
        {
            "qkv": jax.random.normal(keys[6 * i], (d, 3 * d), jnp.bfloat16) * 0.02,
            "o": jax.random.normal(keys[6 * i + 1], (d, d), jnp.bfloat16) * 0.02,
            "up": jax.random.normal(keys[6 * i + 2], (d, 4 * d), jnp.bfloat16) * 0.02,
            "down": jax.random.normal(keys[6 * i + 3], (4 * d, d), jnp.bfloat16) * 0.02,
        }
        for i in range(layers)
    ]
    x = jax.random.normal(keys[-1], (b, s_, d), jnp.bfloat16)

    def norm(x):
        m = x.astype(jnp.float32)
        m = (m - m.mean(-1, keepdims=True)) * jax.lax.rsqrt(m.var(-1, keepdims=True) + 1e-5)
        return m.astype(jnp.bfloat16)

    @jax.jit
    def step(params, x):
        for p in params:
            q, k, v = jnp.split(norm(x) @ p["qkv"], 3, axis=-1)
            q, k, v = (t.reshape(b, s_, h, d // h).transpose(0, 2, 1, 3) for t in (q, k, v))
            scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d // h).astype(jnp.bfloat16)
            probs = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(jnp.bfloat16)
            a = jnp.einsum("bhqk,bhkd->bhqd", probs, v).transpose(0, 2, 1, 3).reshape(b, s_, d)
            x = x + a @ p["o"]
            x = x + jax.nn.gelu(norm(x) @ p["up"]) @ p["down"]
        return x

    step(params, x).block_until_ready()
    t = time.time()
    for _ in range(10):
        x = step(params, x)
    x.block_until_ready()
    print(f"jax transformer: 10 steps in {time.time() - t:.3f} s", flush=True)


def flex_attention():
    torch = _torch()
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention as flex

    b, h, s_, d = 4, 16, 2048, 64
    q, k, v = (torch.randn(b, h, s_, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    mask = create_block_mask(lambda b_, h_, qi, ki: qi >= ki, None, None, s_, s_, device="cuda")
    attend = torch.compile(flex)
    for _ in range(3):
        attend(q, k, v, block_mask=mask)
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(20):
        attend(q, k, v, block_mask=mask)
    torch.cuda.synchronize()
    print(f"flex attention: 20 calls in {time.time() - t:.3f} s", flush=True)


def fp8_decode():
    torch = _torch()
    d, layers = 4096, 16
    weights = [(torch.randn(d, d, device="cuda") * 0.02).to(torch.float8_e4m3fn) for _ in range(2 * layers)]
    scale_w = torch.tensor(1.0, device="cuda")
    x = torch.randn(16, d, device="cuda", dtype=torch.bfloat16)  # 16 sequences decoding (fp8 GEMMs need M % 16)

    def linear(x, w):
        amax = x.abs().amax().float().clamp(min=1e-4)
        scale = amax / 448.0
        xq = (x.float() / scale).to(torch.float8_e4m3fn)
        return torch._scaled_mm(xq, w.t(), scale_a=scale, scale_b=scale_w, out_dtype=torch.bfloat16)

    def step(x):
        for i in range(layers):
            x = x + linear(torch.nn.functional.silu(linear(x, weights[2 * i])), weights[2 * i + 1])
        return x

    _decode_steps("fp8 decode", step, x)


def grouped_moe():
    torch = _torch()
    experts, tokens, d, f = 8, 4096, 1024, 2816
    x = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16)
    # The experts' weights column-major in their last two dimensions, as _grouped_mm wants them.
    w1 = (torch.randn(experts, f, d, device="cuda", dtype=torch.bfloat16) * 0.02).transpose(-2, -1)
    w2 = (torch.randn(experts, d, f, device="cuda", dtype=torch.bfloat16) * 0.02).transpose(-2, -1)
    router = torch.randn(d, experts, device="cuda", dtype=torch.bfloat16) * 0.02

    def step(x):
        expert = (x @ router).argmax(-1)
        order = torch.argsort(expert)
        offs = torch.cumsum(torch.bincount(expert, minlength=experts), 0).to(torch.int32)
        h = torch.nn.functional.silu(torch._grouped_mm(x[order], w1, offs=offs))
        y = torch._grouped_mm(h, w2, offs=offs)
        out = torch.empty_like(y)
        out[order] = y
        return out

    for _ in range(3):
        step(x)
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(30):
        x = x + 0.1 * step(x)
    torch.cuda.synchronize()
    print(f"grouped moe: 30 steps in {time.time() - t:.3f} s", flush=True)


def graph_replay():
    torch = _torch()
    d, layers = 2048, 24
    weights = [torch.randn(d, d, device="cuda", dtype=torch.bfloat16) * 0.02 for _ in range(layers)]
    x = torch.randn(8, d, device="cuda", dtype=torch.bfloat16)

    def step(x):
        for w in weights:
            x = x + torch.nn.functional.silu(x @ w)
        return x

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step(x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(x)
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(200):
        graph.replay()
    torch.cuda.synchronize()
    print(f"graph replay: 200 replays in {time.time() - t:.3f} s", flush=True)


def jax_conv():
    import jax
    import jax.numpy as jnp

    blocks, c, batch, size = 8, 128, 32, 112
    keys = jax.random.split(jax.random.PRNGKey(0), blocks + 2)
    params = [jax.random.normal(keys[i], (c, c, 3, 3), jnp.bfloat16) * 0.02 for i in range(blocks)]
    stem = jax.random.normal(keys[-2], (c, 3, 3, 3), jnp.bfloat16) * 0.1
    x = jax.random.normal(keys[-1], (batch, 3, size, size), jnp.bfloat16)
    dims = ("NCHW", "OIHW", "NCHW")

    def net(params, x):
        h = jax.lax.conv_general_dilated(x, stem, (1, 1), "SAME", dimension_numbers=dims)
        for w in params:
            y = jax.lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=dims)
            m = y.astype(jnp.float32)
            mean, var = m.mean((0, 2, 3), keepdims=True), m.var((0, 2, 3), keepdims=True)
            h = h + jax.nn.relu((m - mean) * jax.lax.rsqrt(var + 1e-5)).astype(jnp.bfloat16)
        return (h.astype(jnp.float32) ** 2).mean()

    step = jax.jit(jax.value_and_grad(net))
    loss, grads = step(params, x)
    jax.block_until_ready(grads)
    t = time.time()
    for _ in range(10):
        loss, grads = step(params, x)
    jax.block_until_ready(grads)
    print(f"jax conv: 10 steps in {time.time() - t:.3f} s, loss {float(loss):.4f}", flush=True)


def int4_decode():
    torch = _torch()
    d, layers, group = 4096, 16, 128
    x = torch.randn(1, d, device="cuda", dtype=torch.bfloat16)
    packed = []
    for _ in range(2 * layers):
        q = torch.randint(0, 16, (d, d), device="cuda", dtype=torch.int32)
        w_uint8 = (q[:, ::2] << 4 | q[:, 1::2]).to(torch.uint8)
        w = torch._convert_weight_to_int4pack(w_uint8, 8)
        scales = torch.ones(d // group, d, 2, device="cuda", dtype=torch.bfloat16) * 0.01
        scales[..., 1] = 0
        packed.append((w, scales))

    def linear(x, i):
        w, scales = packed[i]
        return torch._weight_int4pack_mm(x, w, group, scales)

    def step(x):
        for i in range(layers):
            x = x + linear(torch.nn.functional.silu(linear(x, 2 * i)), 2 * i + 1) * 0.01
        return x

    _decode_steps("int4 decode", step, x)


def long_prefill():
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=2,
                         num_attention_heads=16, num_key_value_heads=16, max_position_embeddings=16384)
    model = LlamaForCausalLM._from_config(config, attn_implementation="sdpa", dtype=torch.bfloat16).cuda().eval()
    ids = torch.randint(0, 32000, (1, 16384), device="cuda")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    t = time.time()
    with torch.no_grad():
        for _ in range(4):
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                model.model(input_ids=ids, use_cache=False)
    torch.cuda.synchronize()
    print(f"long prefill: 4 forwards of 16384 tokens in {time.time() - t:.3f} s", flush=True)


def _int8_decode(label, linear, steps):
    """A batch-1 decode-shaped stack of 16 layers of 4096 whose linears are `linear(x, w, scale)`
    over int8 weights with a bf16 scale per output row."""
    torch = _torch()
    d, layers = 4096, 16
    weights = [(torch.randint(-127, 127, (d, d), device="cuda", dtype=torch.int8),
                torch.rand(d, device="cuda", dtype=torch.bfloat16) * 0.01) for _ in range(2 * layers)]
    x = torch.randn(1, d, device="cuda", dtype=torch.bfloat16)

    def step(x):
        for i in range(layers):
            h = torch.nn.functional.silu(linear(x, *weights[2 * i]))
            x = x + linear(h, *weights[2 * i + 1]) * 0.01
        return x

    _decode_steps(label, step, x, steps=steps)


def int8_dequant():
    import torch

    _int8_decode("int8 dequant decode", lambda x, w, scale: x @ (w.to(torch.bfloat16) * scale[:, None]).t(), 20)


def int8_packed():
    import torch

    _int8_decode("int8 packed decode", torch._weight_int8pack_mm, 50)


def _jax_norm(x):
    """A layer norm written as ops, in fp32 (XLA fuses it into one reduction)."""
    import jax
    import jax.numpy as jnp

    m = x.astype(jnp.float32)
    m = (m - m.mean(-1, keepdims=True)) * jax.lax.rsqrt(m.var(-1, keepdims=True) + 1e-5)
    return m.astype(jnp.bfloat16)


def _jax_timed(label, step, state, steps=10):
    """One warm-up call of `step`, then `steps` timed ones feeding each its output."""
    import jax

    jax.block_until_ready(step(*state))
    t = time.time()
    for _ in range(steps):
        state = step(*state)
    jax.block_until_ready(state)
    print(f"{label}: {steps} steps in {time.time() - t:.3f} s", flush=True)


def _jax_layers(b, s_, d, h, layers, attend):
    """Parameters, input and forward of a pre-norm transformer whose attention is
    `attend(q, k, v)` on (batch, seq, heads, head_dim) arrays."""
    import jax
    import jax.numpy as jnp

    keys = jax.random.split(jax.random.PRNGKey(0), 4 * layers + 1)
    shapes = {"qkv": (d, 3 * d), "o": (d, d), "up": (d, 4 * d), "down": (4 * d, d)}
    params = [
        {name: jax.random.normal(keys[4 * i + j], shape, jnp.bfloat16) * 0.02 for j, (name, shape) in enumerate(shapes.items())}
        for i in range(layers)
    ]
    x = jax.random.normal(keys[-1], (b, s_, d), jnp.bfloat16)

    def forward(params, x):
        for p in params:
            q, k, v = (t.reshape(b, s_, h, d // h) for t in jnp.split(_jax_norm(x) @ p["qkv"], 3, axis=-1))
            x = x + attend(q, k, v).reshape(b, s_, d) @ p["o"]
            x = x + jax.nn.gelu(_jax_norm(x) @ p["up"]) @ p["down"]
        return x

    return params, x, forward


def _einsum_attention(q, k, v):
    import jax
    import jax.numpy as jnp

    scale = jnp.sqrt(q.shape[-1]).astype(jnp.bfloat16)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / scale
    probs = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(jnp.bfloat16)
    return jnp.einsum("bhqk,bkhd->bqhd", probs, v)


def jax_train_attention():
    import jax
    import jax.numpy as jnp

    params, x, forward = _jax_layers(2, 2048, 1024, 8, 2, _einsum_attention)

    @jax.jit
    def train(params, x):
        loss, grads = jax.value_and_grad(lambda p: jnp.mean(forward(p, x).astype(jnp.float32) ** 2))(params)
        return jax.tree.map(lambda p, g: p - 1e-3 * g.astype(p.dtype), params, grads), x

    _jax_timed("jax train attention", train, (params, x))


def jax_cudnn_attention():
    import jax

    def attend(q, k, v):
        return jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="cudnn")

    params, x, forward = _jax_layers(4, 1024, 1024, 16, 4, attend)
    step = jax.jit(lambda params, x: (params, forward(params, x)))
    _jax_timed("jax cudnn attention", step, (params, x))


def _jax_ln_mlp(d, tokens=131072, layers=8):
    import jax
    import jax.numpy as jnp

    keys = jax.random.split(jax.random.PRNGKey(0), layers + 1)
    ws = [jax.random.normal(k, (d, d), jnp.bfloat16) * 0.02 for k in keys[:-1]]
    x = jax.random.normal(keys[-1], (tokens, d), jnp.bfloat16)

    @jax.jit
    def step(ws, x):
        for w in ws:
            x = _jax_norm(x + jax.nn.gelu(x @ w))
        return ws, x

    _jax_timed(f"jax ln mlp {d}", step, (ws, x))


def manual_softmax():
    torch = _torch()
    b, h, s_, d, layers = 4, 16, 2048, 128, 4
    q = torch.randn(b, h, s_, d, device="cuda", dtype=torch.bfloat16)
    k, v = torch.randn_like(q), torch.randn_like(q)

    def step(x):
        for _ in range(layers):
            scores = x @ k.transpose(-1, -2) / d**0.5
            p = torch.exp(scores - scores.amax(-1, keepdim=True))
            x = (p / p.sum(-1, keepdim=True)) @ v
        return x

    with torch.no_grad():
        _decode_steps("manual softmax", step, q, steps=10)


def jax_vit():
    import jax

    # ViT-B/16 shapes: 197 tokens (196 patches and a class token), width 768, 12 heads of 64.
    params, x, forward = _jax_layers(64, 197, 768, 12, 12, _einsum_attention)
    step = jax.jit(lambda params, x: (params, forward(params, x)))
    _jax_timed("jax vit", step, (params, x), steps=20)


CLIENTS = {
    "resnet50-nchw-amp": lambda: _resnet50(False),
    "resnet50-cl-amp": lambda: _resnet50(True),
    "prefill-math": lambda: _prefill("sdpa", "MATH"),
    "prefill-flash": lambda: _prefill("sdpa", "FLASH_ATTENTION"),
    "prefill-eager": lambda: _prefill("eager"),
    "starved-loader": starved_loader,
    "reduce-overhead": reduce_overhead,
    # The memory-efficient backend takes no grouped key/value heads: this one is multi-head.
    "prefill-efficient": lambda: _prefill("sdpa", "EFFICIENT_ATTENTION", kv_heads=16),
    "prefill-cudnn": lambda: _prefill("sdpa", "CUDNN_ATTENTION"),
    "unet-gn": unet_gn,
    "recsys": recsys,
    "jax-attention": jax_attention,
    "jax-transformer": jax_transformer,
    "flex-attention": flex_attention,
    "fp8-decode": fp8_decode,
    "grouped-moe": grouped_moe,
    "graph-replay": graph_replay,
    "jax-conv": jax_conv,
    "int4-decode": int4_decode,
    "long-prefill": long_prefill,
    "int8-dequant": int8_dequant,
    "int8-packed": int8_packed,
    "jax-train-attention": jax_train_attention,
    "jax-cudnn-attention": jax_cudnn_attention,
    "jax-ln-mlp-256": lambda: _jax_ln_mlp(256),
    "jax-ln-mlp-512": lambda: _jax_ln_mlp(512),
    "manual-softmax": manual_softmax,
    "jax-vit": jax_vit,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CLIENTS:
        sys.exit(f"usage: zoo2_clients.py {{{','.join(CLIENTS)}}}")
    CLIENTS[sys.argv[1]]()
