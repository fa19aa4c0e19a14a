# A small 2-rank data-parallel step for torchrun: matmuls on the GPU and an all-reduce of the
# result each step. On one GPU both ranks share cuda:0, which NCCL refuses, so the collective
# backend is chosen by argv[2] ("nccl" needs a GPU per rank; "gloo" works on one GPU).
# Usage: torchrun --nproc-per-node=2 ranks.py SECONDS [nccl|gloo] [trace|tb]
# `trace` exports one Chrome trace per rank (rank<R>/trace.json); `tb` saves them the way most
# users do, with torch.profiler.tensorboard_trace_handler into one directory (TRACE_DIR), as
# <host>_<pid>.<ts>.pt.trace.json.gz files whose rank is only in their distributedInfo.
import os, sys, time, torch, torch.distributed as dist
secs = float(sys.argv[1]) if len(sys.argv) > 1 else 3
backend = sys.argv[2] if len(sys.argv) > 2 else "nccl"
mode = sys.argv[3] if len(sys.argv) > 3 else ""
trace = mode == "trace"
rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
ngpu = torch.cuda.device_count()
dev = torch.device("cuda", local % ngpu)
torch.cuda.set_device(dev)
dist.init_process_group(backend)
# Rank 1 multiplies 5016² matrices instead of 4096² (about 1.8× the work), so it is the slow rank.
n = 4096 if rank == 0 else 5016
A = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
g = torch.randn(1 << 20, device=dev)
def step():
    for _ in range(4):
        A @ A
    if backend == "gloo":
        h = g.cpu(); dist.all_reduce(h); g.copy_(h)
    else:
        dist.all_reduce(g)
def run(t):
    end = time.time() + t; k = 0
    while time.time() < end:
        step(); k += 1
    torch.cuda.synchronize(); return k
run(0.5)
if trace:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(5):
            step()
        torch.cuda.synchronize()
    out = os.environ.get("TRACE_DIR", ".")
    os.makedirs(f"{out}/rank{rank}", exist_ok=True)
    p.export_chrome_trace(f"{out}/rank{rank}/trace.json")
    print(f"rank {rank}: wrote {out}/rank{rank}/trace.json")
elif mode == "tb":
    from torch.profiler import profile, schedule, tensorboard_trace_handler, ProfilerActivity
    out = os.environ.get("TRACE_DIR", ".")
    handler = tensorboard_trace_handler(out, use_gzip=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1), on_trace_ready=handler) as p:
        for _ in range(6):
            step()
            torch.cuda.synchronize()
            p.step()
    print(f"rank {rank}: wrote a tensorboard trace into {out}")
else:
    print(f"rank {rank}: steps {run(secs)}")
dist.destroy_process_group()
