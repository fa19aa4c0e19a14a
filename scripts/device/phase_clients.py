#!/usr/bin/env python3
"""Real clients that load before they compute, for prof's phase detection (issue #16) and
the diagnosis zoo. Run on the H200 (no network: every model is built from a config with
random weights).

  python3 phase_clients.py load_then_busy [LOAD_S] [BUSY_S]
      idles LOAD_S seconds "loading" (host-side tensor work, then a 2 GiB host-to-device
      upload), then runs bf16 8192^2 matmuls flat out for BUSY_S seconds
  python3 phase_clients.py hf_decode [--no-cache] [--attn eager|sdpa] [--tokens N] [--calls K]
      a Llama-style decoder from LlamaConfig (8 layers, hidden 1024), built on the CPU and
      moved to the GPU (the load phase: weight upload), then K `generate` calls at batch 1,
      greedy, exactly N new tokens each
  python3 phase_clients.py hf_moe [--tokens N]
      the same with a Mixtral-style MoE (8 experts, top-2)
  python3 phase_clients.py jax_loop [STEPS]
      a jitted JAX MLP with a layer norm, STEPS steps after the first (compiling) call
  python3 phase_clients.py train_loop [STEPS]
      a torch MLP trained from a DataLoader of pageable CPU batches (forward, backward, AdamW)
  python3 phase_clients.py range_loop [--steps N] [--profiler A:B] [--nvtx]
      capture-range targets: a 512 MiB upload, then N steps of four bf16 matmuls, one cumsum
      (a cub DeviceScan) and a one-token upload; --profiler calls cudaProfilerStart before
      step A and cudaProfilerStop after step B; --nvtx wraps each step in an NVTX range
      `stepI` (synchronised inside the range)
"""
import argparse
import sys
import time


def load_then_busy(load_s: float, busy_s: float) -> None:
    import torch

    end = time.time() + load_s
    host = torch.randn(512, 1024, 1024)  # 2 GiB of fp32 on the host
    while time.time() < end:
        time.sleep(0.1)
    dev = host.to("cuda")
    torch.cuda.synchronize()
    del dev
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    end = time.time() + busy_s
    n = 0
    while time.time() < end:
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()
        n += 1
    print("busy iterations", n, flush=True)


def _generate(model, tokens: int, calls: int, use_cache: bool) -> None:
    import torch

    prompt = torch.randint(0, model.config.vocab_size, (1, 32), device="cuda")
    for call in range(calls):
        t = time.time()
        with torch.no_grad():
            out = model.generate(
                prompt,
                attention_mask=torch.ones_like(prompt),
                max_new_tokens=tokens,
                min_new_tokens=tokens,
                do_sample=False,
                use_cache=use_cache,
                pad_token_id=0,
            )
        torch.cuda.synchronize()
        dt = time.time() - t
        print(f"generate {call}: {out.shape[1] - prompt.shape[1]} tokens in {dt:.3f} s", flush=True)


def _build(cls, config, attn: str):
    """Random weights on the CPU in bf16, then the upload to the GPU (the load phase)."""
    import torch

    try:
        model = cls._from_config(config, attn_implementation=attn, dtype=torch.bfloat16)
    except TypeError:
        model = cls._from_config(config, attn_implementation=attn, torch_dtype=torch.bfloat16)
    model = model.to(torch.bfloat16).to("cuda").eval()
    print("attention:", getattr(model.config, "_attn_implementation", "?"), flush=True)
    return model


def _load_and_generate(cls, config, attn: str, args, use_cache: bool) -> None:
    """Builds `cls` from `config` (the load phase, timed), then runs the generate calls."""
    import torch

    torch.manual_seed(0)
    t = time.time()
    model = _build(cls, config, attn)
    torch.cuda.synchronize()
    print(f"loaded in {time.time() - t:.2f} s", flush=True)
    _generate(model, args.tokens, args.calls, use_cache)


def hf_decode(args) -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=32000,
        hidden_size=1024,
        intermediate_size=2816,
        num_hidden_layers=8,
        num_attention_heads=16,
        num_key_value_heads=8,
        max_position_embeddings=4096,
    )
    _load_and_generate(LlamaForCausalLM, config, args.attn, args, not args.no_cache)


def hf_moe(args) -> None:
    from transformers import MixtralConfig, MixtralForCausalLM

    config = MixtralConfig(
        vocab_size=32000,
        hidden_size=1024,
        intermediate_size=1408,
        num_hidden_layers=4,
        num_attention_heads=16,
        num_key_value_heads=8,
        num_local_experts=8,
        num_experts_per_tok=2,
        max_position_embeddings=4096,
    )
    _load_and_generate(MixtralForCausalLM, config, "sdpa", args, True)


def jax_loop(steps: int) -> None:
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    w1 = jax.random.normal(k1, (2048, 8192), jnp.bfloat16)
    w2 = jax.random.normal(k2, (8192, 2048), jnp.bfloat16)
    x = jax.random.normal(k3, (256, 2048), jnp.bfloat16)

    @jax.jit
    def step(x):
        h = jax.nn.gelu(x @ w1)
        y = h @ w2
        mean = y.mean(-1, keepdims=True)
        var = ((y - mean) ** 2).mean(-1, keepdims=True)
        return (y - mean) * jax.lax.rsqrt(var + 1e-5)

    t = time.time()
    x = step(x).block_until_ready()
    print(f"compiled in {time.time() - t:.2f} s", flush=True)
    for _ in range(steps):
        x = step(x)
    x.block_until_ready()
    print("steps", steps, flush=True)


def train_loop(steps: int) -> None:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(steps * 64, 1024), torch.randint(0, 10, (steps * 64,)))
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 10)
    ).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    n = 0
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        n += 1
    torch.cuda.synchronize()
    print("train steps", n, "loss", float(loss), flush=True)


def range_loop(args) -> None:
    import torch

    first, last = (int(v) for v in args.profiler.split(":")) if args.profiler else (-1, -1)
    dev = torch.randn(128, 1024, 1024).to("cuda")  # the "weights": 512 MiB up
    torch.cuda.synchronize()
    del dev
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(1024, 4096, device="cuda", dtype=torch.bfloat16)
    v = torch.arange(4096, device="cuda", dtype=torch.float32)
    for i in range(args.steps):
        if i == first:
            torch.cuda.profiler.start()
        if args.nvtx:
            torch.cuda.nvtx.range_push(f"step{i}")
        torch.tensor([i]).to("cuda")
        for _ in range(4):
            x @ w
        torch.cumsum(v, 0)
        torch.cuda.synchronize()
        if args.nvtx:
            torch.cuda.nvtx.range_pop()
        if i == last:
            torch.cuda.profiler.stop()
    print("range loop steps", args.steps, flush=True)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    rest = sys.argv[2:]
    if mode == "load_then_busy":
        load_then_busy(float(rest[0]) if rest else 20, float(rest[1]) if len(rest) > 1 else 6)
    elif mode in ("hf_decode", "hf_moe"):
        p = argparse.ArgumentParser()
        p.add_argument("--no-cache", action="store_true")
        p.add_argument("--attn", default="sdpa")
        p.add_argument("--tokens", type=int, default=64)
        p.add_argument("--calls", type=int, default=2)
        args = p.parse_args(rest)
        (hf_decode if mode == "hf_decode" else hf_moe)(args)
    elif mode == "jax_loop":
        jax_loop(int(rest[0]) if rest else 200)
    elif mode == "train_loop":
        train_loop(int(rest[0]) if rest else 50)
    elif mode == "range_loop":
        p = argparse.ArgumentParser()
        p.add_argument("--steps", type=int, default=40)
        p.add_argument("--profiler", default="")
        p.add_argument("--nvtx", action="store_true")
        range_loop(p.parse_args(rest))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
