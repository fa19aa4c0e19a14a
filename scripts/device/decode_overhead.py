"""One timed run of batch-1 decode of a Llama-style model (random weights, built from a
LlamaConfig on the GPU: the device machine has no network), printing one JSON line.

Used by scripts/device/decode_overhead.sh, which runs it once per tracer mode and round in
its own process (prof's CUPTI tracer is injected with CUDA_INJECTION64_PATH before CUDA starts).

    python3 decode_overhead.py MODE [TOKENS] [REPEATS]

MODE: plain | tracer (whatever CUDA_INJECTION64_PATH / PROF_CUPTI_* say) | toggle (the
tracer with PROF_CUPTI_API_TOGGLE=1: calls alternate with the API records on and off, in one
process) | nsys (run under
`nsys profile`, timed the same way) | torch-profiler | check-tracer / check-torch (one
decode inside cudaProfilerStart/Stop, resp. torch.profiler, writing the kernel list for the
comparison; the tracer is told PROF_CUPTI_START_ON=profiler).

Each of REPEATS timed calls makes TOKENS greedy decode steps after 2 warm-up calls (see
`decode`: no host sync inside, so a step's time is the host's launch time). Per call: the
median step time and the launching thread's CPU time per token. The line holds the best
call's median step (least disturbed), the median over calls, and the median CPU time; the
first measurement on the H200, with `generate` and its per-token sync, swung 2x between
calls of one process as the GPU's clocks followed its idle time.
"""
import json
import statistics
import sys
import time

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

mode = sys.argv[1]
tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 64
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5



def host_speed():
    """Seconds a fixed pure-Python workload takes on this thread (the median of 5): the
    speed of the core this process got, measured without CUDA. Processes of one mode
    differed by up to 20 % on the H200 host; dividing by this factors the core out."""
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        total = 0
        for i in range(200_000):
            total += i * i % 7
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


calibration = [host_speed()]  # before CUDA starts, so before the tracer is loaded
torch.manual_seed(0)
config = LlamaConfig(
    hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=16,
    num_key_value_heads=16, vocab_size=32000, max_position_embeddings=2048,
)
config._attn_implementation = "eager"
with torch.device("cuda"):
    model = LlamaForCausalLM(config).to(dtype=torch.bfloat16).eval()
prompt = torch.randint(0, config.vocab_size, (1, 32), device="cuda")


def decode():
    """TOKENS greedy decode steps with a KV cache, as `generate` makes them but without its
    per-token host sync: the thread launches step after step and never waits for the GPU,
    so the time of a step is the host's launch time (the tracer's cost lands there), not
    the GPU's, whose clocks swing on a mostly idle device."""
    torch.cuda.synchronize()
    cpu = time.thread_time()
    steps = []
    with torch.no_grad():
        cache = DynamicCache()
        out = model(input_ids=prompt, past_key_values=cache, use_cache=True)
        token = out.logits[:, -1:].argmax(-1)
        for _ in range(tokens):
            t = time.perf_counter()
            out = model(input_ids=token, past_key_values=cache, use_cache=True)
            token = out.logits[:, -1:].argmax(-1)
            steps.append(time.perf_counter() - t)
    t = time.perf_counter()
    torch.cuda.synchronize()
    tails.append(time.perf_counter() - t)
    assert cache.get_seq_length() == prompt.shape[1] + tokens
    return statistics.median(steps), (time.thread_time() - cpu) / tokens


tails = []  # the GPU's lag behind the host at the end of each call
for _ in range(2):
    decode()

if mode.startswith("check-"):
    if mode == "check-torch":
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            decode()
        names = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith("Memcpy") and not e.name.startswith("Memset"):
                names[e.name] = names.get(e.name, 0) + 1
        json.dump(names, open(sys.argv[4], "w"))
    else:
        torch.cuda.profiler.start()
        decode()
        torch.cuda.profiler.stop()
    print(json.dumps({"mode": mode}))
    sys.exit(0)

if mode == "toggle":
    # One process, the tracer's API records paused and resumed by SIGUSR2
    # (PROF_CUPTI_API_TOGGLE=1): calls alternate on, off, on, off..., so both states share the
    # process, its core and its memory, and the ratio is free of the between-process spread.
    import os
    import signal

    def flip():
        os.kill(os.getpid(), signal.SIGUSR2)
        time.sleep(0.3)  # the tracer's control thread applies it within its 50 ms poll

    # Pairs alternate their order (on-off, off-on, ...) so a drift within the process does
    # not favour one state; each pair's ratio compares two calls a second apart, which share
    # the host's state of that moment (single calls of one process swung 22-44 ms/token).
    on, off, pair_ratios, active = [], [], [], True
    for i in range(repeats):
        pair = {}
        for _ in range(2):
            (on if active else off).append(decode()[0])
            pair[active] = (on if active else off)[-1]
            flip()
            active = not active
        pair_ratios.append(pair[False] / pair[True])
    print(json.dumps({
        "mode": mode,
        "api_on_best_us": min(on) * 1e6, "api_off_best_us": min(off) * 1e6,
        "api_on_median_us": statistics.median(on) * 1e6, "api_off_median_us": statistics.median(off) * 1e6,
        "on_over_off_speed": min(off) / min(on),
        "pair_ratio_median": statistics.median(pair_ratios),
        "on_us": [round(x * 1e6, 1) for x in on], "off_us": [round(x * 1e6, 1) for x in off],
    }))
    sys.exit(0)

kernels = None
timings = []
if mode == "torch-profiler":
    from torch.profiler import ProfilerActivity, profile

    for _ in range(repeats):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            timings.append(decode())
        kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA) / tokens
else:
    timings = [decode() for _ in range(repeats)]
calibration.append(host_speed())
walls = [w for w, _ in timings]
cpus = [c for _, c in timings]
print(json.dumps({
    "mode": mode,
    "tokens_per_s": 1 / statistics.median(walls),
    "best_us_per_token": min(walls) * 1e6,
    "median_us_per_token": statistics.median(walls) * 1e6,
    "cpu_us_per_token": statistics.median(cpus) * 1e6,
    "walls_us": [round(w * 1e6, 1) for w in walls],
    "kernels_per_token": kernels,
    "gpu_lag_ms": round(statistics.median(tails) * 1e3, 2),
    "host_speed_ms": [round(c * 1e3, 2) for c in calibration],
    "normalized_per_token": min(walls) / statistics.mean(calibration),
}))
