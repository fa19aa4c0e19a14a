"""One timed run of batch-1 decode of a Llama-style model (random weights, built from a
LlamaConfig: the device machine has no network), printing one JSON line with tokens/s.

Used by scripts/device/decode_overhead.sh, which runs it once per tracer mode and round in
its own process (prof's CUPTI tracer is injected with CUDA_INJECTION64_PATH before CUDA starts).

    python3 decode_overhead.py MODE [TOKENS] [REPEATS]

MODE: plain | tracer (whatever CUDA_INJECTION64_PATH / PROF_CUPTI_API say) | torch-profiler.
Each of REPEATS timed `generate` calls makes exactly TOKENS new tokens after 2 warm-up calls;
the line holds the median tokens/s and the kernels per token (from torch.profiler in that mode).
"""
import json
import statistics
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

mode = sys.argv[1]
tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 64
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5

torch.manual_seed(0)
config = LlamaConfig(
    hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=16,
    num_key_value_heads=16, vocab_size=32000, max_position_embeddings=2048,
)
config._attn_implementation = "eager"
model = LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
prompt = torch.randint(0, config.vocab_size, (1, 32), device="cuda")
kwargs = dict(max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False, use_cache=True, pad_token_id=0)


def decode():
    torch.cuda.synchronize()
    t = time.perf_counter()
    with torch.no_grad():
        out = model.generate(prompt, **kwargs)
    torch.cuda.synchronize()
    assert out.shape[1] == prompt.shape[1] + tokens
    return tokens / (time.perf_counter() - t)


for _ in range(2):
    decode()
kernels = None
if mode == "torch-profiler":
    from torch.profiler import ProfilerActivity, profile

    rates = []
    for _ in range(repeats):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            rates.append(decode())
        kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA) / tokens
else:
    rates = [decode() for _ in range(repeats)]
print(json.dumps({"mode": mode, "tokens_per_s": statistics.median(rates), "rates": rates, "kernels_per_token": kernels}))
