#!/usr/bin/env python3
"""`prof analyze` against HolisticTraceAnalysis on the same large PyTorch profiler trace.

Builds a trace of about SIZE_MB by repeating the events of the real H200 trace
(tests/fixtures/nvidia/h200-probe/torch-trace.json) with shifted timestamps and correlation
ids, then times, in one run on one machine:
  prof:  `prof analyze --json FILE` (kernel summary, families, diagnosis)
  HTA:   TraceAnalysis(trace_dir).get_gpu_kernel_breakdown() (pip install HolisticTraceAnalysis)
and prints wall time, MB/s, peak RSS and both tools' total kernel time (they must agree).
Usage: torch_trace_vs_hta.py PROF_BINARY [SIZE_MB] [--skip-hta]
"""
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bigtrace import build  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "tests/fixtures/nvidia/h200-probe/torch-trace.json")


def run(argv):
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr[-2000:]}")
    return wall, proc.stdout


HTA = """
import sys, json, resource
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
types, kernels = a.get_gpu_kernel_breakdown(visualize=False)
total = float(kernels["sum (us)"].sum())
print(json.dumps({"kernel_total_us": total, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def main():
    prof = sys.argv[1]
    size_mb = float(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 1000
    trace_dir = f"/tmp/prof-bench/torch-{int(size_mb)}mb"
    path = os.path.join(trace_dir, "rank-0.json")
    build(SOURCE, size_mb, path)
    size = os.path.getsize(path) / 1e6
    print(f"trace: {path} ({size:.0f} MB)")
    wall, out = run([prof, "analyze", "--json", path])
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    doc = json.loads(out)
    prof_kernel_ns = sum(k["total_ns"] for k in doc["summary"]["kernels"] if k["kind"] in ("kernel", "communication"))
    print(f"prof analyze: {wall:.2f} s, {size / wall:.0f} MB/s, peak RSS {rss:.0f} MB, kernel total {prof_kernel_ns / 1e6:.1f} ms")
    if "--skip-hta" in sys.argv:
        return
    wall_hta, out = run([sys.executable, "-c", HTA, trace_dir])
    hta = json.loads(out.strip().splitlines()[-1])
    print(f"HTA get_gpu_kernel_breakdown: {wall_hta:.2f} s, {size / wall_hta:.1f} MB/s, peak RSS {hta['maxrss_kb'] / 1024:.0f} MB, kernel total {hta['kernel_total_us'] / 1e3:.1f} ms")
    print(f"prof is {wall_hta / wall:.1f}x faster than HTA on the same file")


main()
