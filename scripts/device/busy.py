# A busy PyTorch loop for `prof util` on the H200: bf16 matmuls for N seconds.
import sys, time, torch
secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + secs
n = 0
while time.time() < end:
    for _ in range(20):
        a @ a
    torch.cuda.synchronize()
    n += 1
print("iterations", n)
