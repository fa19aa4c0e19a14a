# torch.profiler traces of the same decode-shaped step (tests/fixtures/nvidia/work.py) run
# eagerly and replayed as one CUDA graph: the pair `prof diff` compares (graph mode should
# remove the launch gaps). Writes eager.json and graph.json into argv[1].
import os, sys, torch
from torch.profiler import profile, ProfilerActivity
out = sys.argv[1] if len(sys.argv) > 1 else "."
dev = "cuda"
d, h = 4096, 32
W = [torch.randn(d, d, device=dev, dtype=torch.bfloat16) for _ in range(4)]
x = torch.randn(1, d, device=dev, dtype=torch.bfloat16)
q = torch.randn(1, h, 1, 128, device=dev, dtype=torch.bfloat16)
k = torch.randn(1, h, 1024, 128, device=dev, dtype=torch.bfloat16)
def step(x):
    for w in W:
        x = torch.nn.functional.rms_norm(x, (d,))
        x = x @ w
    a = torch.nn.functional.scaled_dot_product_attention(q, k, k)
    logits = torch.softmax(x.float(), -1)
    return x, torch.topk(logits, 8)
def record(name, fn):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
    p.export_chrome_trace(os.path.join(out, name))
    print(name, "written")
record("eager.json", lambda: step(x))
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        step(x)
torch.cuda.current_stream().wait_stream(s)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static = step(x)
record("graph.json", graph.replay)
