#!/usr/bin/env python3
"""The diagnosis zoo's clients (issue #18): real workloads of the shapes prof's rules name, run
on the H200 with random weights (no network). Each is traced whole by prof's CUPTI tracer from
scripts/device/record_zoo.sh; a few also write a torch.profiler trace (--torch-trace FILE).

  python3 zoo_clients.py NAME [--torch-trace FILE]

Names (the shape each one is, what prof should and should not say is in tests/zoo.rs):
  decode-sample   Llama-style decode, KV cache, SDPA, top-k sampling (topk once a token)
  qwen3-moe       Qwen3-MoE-style decode (eager expert loop, 16 experts, top-4)
  moe-grouped     Mixtral-style MoE layer stack with experts as torch._grouped_mm, decode-sized
  fp8-linear      an MLP whose linears quantize activations to FP8 each call (torch._scaled_mm)
  compiled        a torch.compile'd transformer block stack (Triton fusions, SDPA), batch 8
  graph-decode    a decode-shaped step (RMSNorm, GEMV-sized matmuls, SDPA) replayed as a CUDA graph
  llm-train       a Llama-style model's training steps (forward, backward, AdamW)
  resnet-train    torchvision ResNet-18 training steps (convolutions, batch norm, pooling, loss)
  alexnet-infer   torchvision AlexNet inference at batch 128
  pageable-loader a loop whose batches are copied from pageable host memory, small compute
  plain-cuda      a plain CUDA program (saxpy and a naive matmul), compiled with nvcc if present
"""
import argparse
import os
import subprocess
import sys
import time


def _torch():
    import torch

    torch.manual_seed(0)
    return torch


def _llama(layers=8, hidden=1024, inter=2816, attn="sdpa"):
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=32000,
        hidden_size=hidden,
        intermediate_size=inter,
        num_hidden_layers=layers,
        num_attention_heads=16,
        num_key_value_heads=8,
        max_position_embeddings=4096,
    )
    model = LlamaForCausalLM._from_config(config, attn_implementation=attn, dtype=torch.bfloat16)
    return model.to("cuda")


def _generate(model, tokens, calls=2, **kw):
    torch = _torch()
    prompt = torch.randint(0, model.config.vocab_size, (1, 32), device="cuda")
    for call in range(calls):
        t = time.time()
        with torch.no_grad():
            model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=tokens,
                           min_new_tokens=tokens, pad_token_id=0, **kw)
        torch.cuda.synchronize()
        print(f"generate {call}: {tokens} tokens in {time.time() - t:.3f} s", flush=True)


def decode_sample(_):
    model = _llama().eval()
    _generate(model, 48, do_sample=True, top_k=50, temperature=0.8)


def qwen3_moe(_):
    torch = _torch()
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    config = Qwen3MoeConfig(
        vocab_size=32000, hidden_size=1024, intermediate_size=2048, moe_intermediate_size=512,
        num_hidden_layers=4, num_attention_heads=16, num_key_value_heads=4, head_dim=64,
        num_experts=16, num_experts_per_tok=4, max_position_embeddings=4096,
    )
    impl = os.environ.get("ZOO_EXPERTS", "eager")
    try:
        model = Qwen3MoeForCausalLM._from_config(
            config, attn_implementation="sdpa", dtype=torch.bfloat16, experts_implementation=impl)
    except (TypeError, ValueError) as e:
        print("experts_implementation refused:", e, flush=True)
        model = Qwen3MoeForCausalLM._from_config(config, attn_implementation="sdpa", dtype=torch.bfloat16)
    model = model.to("cuda").eval()
    print("experts:", getattr(model.config, "_experts_implementation", "?"), flush=True)
    _generate(model, 24, do_sample=False)


def moe_grouped(_):
    """A decode-sized MoE stack: router (linear, softmax, topk), tokens sorted by expert, the
    experts as torch._grouped_mm (one kernel for all experts), then the weighted scatter back."""
    torch = _torch()
    F = torch.nn.functional
    tokens, hidden, inter, experts, k, layers = 16, 2048, 1024, 32, 4, 8
    dev, dt = "cuda", torch.bfloat16
    wr = [torch.randn(hidden, experts, device=dev, dtype=dt) * 0.02 for _ in range(layers)]
    w1 = [torch.randn(experts, hidden, 2 * inter, device=dev, dtype=dt) * 0.02 for _ in range(layers)]
    w2 = [torch.randn(experts, inter, hidden, device=dev, dtype=dt) * 0.02 for _ in range(layers)]
    x = torch.randn(tokens, hidden, device=dev, dtype=dt)

    def layer(x, i):
        h = F.rms_norm(x, (hidden,))
        probs = torch.softmax((h @ wr[i]).float(), -1)
        weight, idx = torch.topk(probs, k, -1)
        flat = idx.flatten()
        order = flat.argsort()
        counts = torch.bincount(flat, minlength=experts)
        offs = torch.cumsum(counts, 0).to(torch.int32)
        rows = h.repeat_interleave(k, 0)[order]
        gu = torch._grouped_mm(rows, w1[i], offs=offs)
        g, u = gu.chunk(2, -1)
        y = torch._grouped_mm((F.silu(g) * u).contiguous(), w2[i], offs=offs)
        out = torch.zeros(tokens * k, hidden, device=dev, dtype=dt)
        out[order] = y
        out = (out.view(tokens, k, hidden) * weight.to(dt).unsqueeze(-1)).sum(1)
        return x + out

    def step(x):
        for i in range(layers):
            x = layer(x, i)
        return x

    for _ in range(5):
        step(x)
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(60):
        x = step(x) * 0.5
    torch.cuda.synchronize()
    print(f"grouped moe: 60 steps in {time.time() - t:.3f} s", flush=True)


def fp8_linear(_):
    """Dynamic FP8 quantization in front of every linear: amax, scale, cast, then _scaled_mm."""
    torch = _torch()
    dev = "cuda"
    fp8 = torch.float8_e4m3fn
    dims = [(4096, 4096)] * 8
    ws = [torch.randn(o, i, device=dev).to(fp8) for i, o in dims]
    x = torch.randn(256, 4096, device=dev, dtype=torch.bfloat16)
    one = torch.ones((), device=dev)

    def linear(x, w):
        amax = x.abs().amax().float().clamp(min=1e-6)
        scale = amax / 448.0
        xq = (x / scale).to(fp8)
        return torch._scaled_mm(xq, w.t(), scale_a=scale, scale_b=one, out_dtype=torch.bfloat16)

    def step(x):
        for w in ws:
            x = torch.nn.functional.gelu(linear(x, w))
        return x

    for _ in range(5):
        step(x)
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(100):
        y = step(x)
    torch.cuda.synchronize()
    print(f"fp8 linear: 100 steps in {time.time() - t:.3f} s", y.shape, flush=True)


def _block(torch, hidden=1024, heads=16):
    F = torch.nn.functional

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = torch.nn.Linear(hidden, 3 * hidden, bias=False)
            self.o = torch.nn.Linear(hidden, hidden, bias=False)
            self.up = torch.nn.Linear(hidden, 4 * hidden, bias=False)
            self.down = torch.nn.Linear(4 * hidden, hidden, bias=False)

        def forward(self, x):
            b, s, _ = x.shape
            h = F.rms_norm(x, (hidden,))
            q, k, v = self.qkv(h).view(b, s, 3, heads, hidden // heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, hidden)
            x = x + self.o(a)
            return x + self.down(F.gelu(self.up(F.rms_norm(x, (hidden,)))))

    return Block


def compiled(_):
    torch = _torch()
    Block = _block(torch)
    model = torch.nn.Sequential(*[Block() for _ in range(6)]).to("cuda", torch.bfloat16).eval()
    fast = torch.compile(model)
    x = torch.randn(8, 256, 1024, device="cuda", dtype=torch.bfloat16)
    t = time.time()
    with torch.no_grad():
        for _ in range(3):
            fast(x)
        torch.cuda.synchronize()
        print(f"compiled in {time.time() - t:.2f} s", flush=True)
        t = time.time()
        for _ in range(80):
            y = fast(x)
        torch.cuda.synchronize()
    print(f"compiled: 80 steps in {time.time() - t:.3f} s", y.shape, flush=True)


def graph_decode(_):
    torch = _torch()
    F = torch.nn.functional
    d, heads, layers = 4096, 32, 16
    dev, dt = "cuda", torch.bfloat16
    W = [torch.randn(d, d, device=dev, dtype=dt) * 0.01 for _ in range(layers)]
    x = torch.randn(1, d, device=dev, dtype=dt)
    q = torch.randn(1, heads, 1, 128, device=dev, dtype=dt)
    kv = torch.randn(1, heads, 2048, 128, device=dev, dtype=dt)

    def step(x):
        for w in W:
            x = F.rms_norm(x, (d,))
            x = x @ w
            F.scaled_dot_product_attention(q, kv, kv)
        return x

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step(x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step(x)
    t = time.time()
    for _ in range(400):
        graph.replay()
    torch.cuda.synchronize()
    print(f"graph decode: 400 replays in {time.time() - t:.3f} s", flush=True)


def llm_train(_):
    torch = _torch()
    model = _llama(layers=4).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 32000, (4, 512), device="cuda")
    t = time.time()
    for _ in range(12):
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"llm train: 12 steps in {time.time() - t:.3f} s, loss {loss.item():.3f}", flush=True)


def resnet_train(args):
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet18(num_classes=100).cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 160, 160, device="cuda")
    y = torch.randint(0, 100, (64,), device="cuda")

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    _maybe_profiled(torch, args, step, 12)


def alexnet_infer(args):
    torch = _torch()
    import torchvision

    model = torchvision.models.alexnet(num_classes=1000).cuda().eval()
    x = torch.randn(128, 3, 224, 224, device="cuda")

    def step():
        with torch.no_grad():
            return model(x).argmax(-1)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    _maybe_profiled(torch, args, step, 30)


def _maybe_profiled(torch, args, step, n):
    """Runs `step` n times, under torch.profiler when --torch-trace names a file."""
    t = time.time()
    if args.torch_trace:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
            for _ in range(n):
                step()
                p.step()
            torch.cuda.synchronize()
        p.export_chrome_trace(args.torch_trace)
    else:
        for _ in range(n):
            step()
        torch.cuda.synchronize()
    print(f"{n} steps in {time.time() - t:.3f} s", flush=True)


def pageable_loader(_):
    """Each step copies a fresh 64 MiB batch from pageable host memory, then a small model."""
    torch = _torch()
    batches = [torch.randn(4096, 4096) for _ in range(4)]  # 64 MiB each, pageable
    w = torch.randn(4096, 256, device="cuda")
    t = time.time()
    for i in range(40):
        x = batches[i % 4].to("cuda")
        (x @ w).relu().sum().item()
    print(f"pageable loader: 40 steps in {time.time() - t:.3f} s", flush=True)


CUDA_SRC = r"""
#include <cstdio>
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void naive_matmul(int n, const float* a, const float* b, float* c) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n && col < n) { float s = 0; for (int k = 0; k < n; ++k) s += a[r * n + k] * b[k * n + col]; c[r * n + col] = s; }
}
int main() {
  int n = 1 << 22, m = 1024; float *x, *y, *a, *b, *c;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMemset(x, 0, n * 4); cudaMemset(y, 0, n * 4);
  cudaMalloc(&a, m * m * 4); cudaMalloc(&b, m * m * 4); cudaMalloc(&c, m * m * 4);
  cudaMemset(a, 0, m * m * 4); cudaMemset(b, 0, m * m * 4);
  for (int it = 0; it < 50; ++it) {
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    naive_matmul<<<dim3(m / 16, m / 16), dim3(16, 16)>>>(m, a, b, c);
  }
  cudaDeviceSynchronize(); printf("plain cuda: 50 iterations\n"); return 0;
}
"""


def plain_cuda(_):
    nvcc = next((p for p in ("nvcc", "/usr/local/cuda/bin/nvcc") if subprocess.run(["which", p], capture_output=True).returncode == 0 or os.path.exists(p)), None)
    if nvcc is None:
        sys.exit("plain-cuda: no nvcc on this machine")
    src, exe = "/tmp/zoo_plain.cu", "/tmp/zoo_plain"
    with open(src, "w") as f:
        f.write(CUDA_SRC)
    subprocess.run([nvcc, "-O2", "-arch=sm_90", "-o", exe, src], check=True)
    os.execv(exe, [exe])


CLIENTS = {
    "decode-sample": decode_sample,
    "qwen3-moe": qwen3_moe,
    "moe-grouped": moe_grouped,
    "fp8-linear": fp8_linear,
    "compiled": compiled,
    "graph-decode": graph_decode,
    "llm-train": llm_train,
    "resnet-train": resnet_train,
    "alexnet-infer": alexnet_infer,
    "pageable-loader": pageable_loader,
    "plain-cuda": plain_cuda,
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", choices=sorted(CLIENTS))
    p.add_argument("--torch-trace", default="")
    args = p.parse_args()
    CLIENTS[args.name](args)


if __name__ == "__main__":
    main()
