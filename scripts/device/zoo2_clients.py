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
"""
import sys
import time


def _torch():
    import torch

    torch.manual_seed(0)
    return torch


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


def _prefill(attn, backend=None):
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
                         num_attention_heads=16, num_key_value_heads=8, max_position_embeddings=4096)
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


CLIENTS = {
    "resnet50-nchw-amp": lambda: _resnet50(False),
    "resnet50-cl-amp": lambda: _resnet50(True),
    "prefill-math": lambda: _prefill("sdpa", "MATH"),
    "prefill-flash": lambda: _prefill("sdpa", "FLASH_ATTENTION"),
    "prefill-eager": lambda: _prefill("eager"),
    "starved-loader": starved_loader,
    "reduce-overhead": reduce_overhead,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CLIENTS:
        sys.exit(f"usage: zoo2_clients.py {{{','.join(CLIENTS)}}}")
    CLIENTS[sys.argv[1]]()
