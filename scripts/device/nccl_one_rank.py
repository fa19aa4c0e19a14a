# torch.profiler trace with NCCL collectives on one GPU (world size 1; torchrun --nproc-per-node=1)
# issued async on NCCL's stream while matmuls run on the default stream, so compute and
# communication overlap for real. Tries several collectives; prints the device kernels seen.
# Usage: torchrun --nproc-per-node=1 nccl_one_rank.py OUT.json
import os, sys, torch, torch.distributed as dist
from torch.profiler import profile, ProfilerActivity
out = sys.argv[1] if len(sys.argv) > 1 else "nccl-trace.json"
torch.cuda.set_device(0)
dist.init_process_group("nccl")
A = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
g = torch.randn(64 << 20, device="cuda")
parts = torch.empty(64 << 20, device="cuda")
def step():
    works = [dist.all_reduce(g, op=dist.ReduceOp.AVG, async_op=True),
             dist.reduce_scatter_tensor(parts, g, op=dist.ReduceOp.AVG, async_op=True)]
    for _ in range(6):
        A @ A
    for w in works:
        w.wait()
for _ in range(3):
    step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
    for _ in range(4):
        step()
    torch.cuda.synchronize()
p.export_chrome_trace(out)
names = sorted({e.key for e in p.key_averages() if e.device_type.name == "CUDA"})
print("device kernels:", *names, sep="\n  ")
dist.destroy_process_group()
