#!/usr/bin/env python3
"""`prof analyze` against HolisticTraceAnalysis on the same large PyTorch profiler trace.

Builds a trace of about SIZE_MB by repeating the events of the real H200 trace
(tests/fixtures/nvidia/h200-probe/torch-trace.json) with shifted timestamps and correlation
ids, then times, in one run on one machine:
  prof:  `prof analyze --phase all --json FILE` (kernel summary, families, diagnosis; the whole
         run, as HTA reads it: prof's default window leaves out the load and warm-up)
  HTA:   TraceAnalysis(trace_dir, include_last_profiler_step=True).get_gpu_kernel_breakdown()
         with HTA_DISABLE_NS_ROUNDING=1 (pip install HolisticTraceAnalysis): every kernel, its
         times as recorded. With its defaults HTA drops the last ProfilerStep and rounds each
         kernel inward to whole us (on this trace of few-us kernels, 7 % less kernel time).
and prints wall time, MB/s, peak RSS and both tools' total GPU op time (kernels, copies, sets), which must agree within
0.01 % (exit status 1 otherwise).
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


def run(argv, env=None):
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr[-2000:]}")
    return wall, proc.stdout


HTA = """
import sys, json, resource
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
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
    wall, out = run([prof, "analyze", "--phase", "all", "--json", path])
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    doc = json.loads(out)
    # HTA's kernel breakdown holds every GPU op (its MEMORY type: copies and sets), as prof's device time does.
    prof_kernel_ns = doc["summary"]["device_ns"]
    print(f"prof analyze: {wall:.2f} s, {size / wall:.0f} MB/s, peak RSS {rss:.0f} MB, kernel total {prof_kernel_ns / 1e6:.1f} ms")
    if "--skip-hta" in sys.argv:
        return
    wall_hta, out = run([sys.executable, "-c", HTA, trace_dir], env=dict(os.environ, HTA_DISABLE_NS_ROUNDING="1"))
    hta = json.loads(out.strip().splitlines()[-1])
    print(f"HTA get_gpu_kernel_breakdown: {wall_hta:.2f} s, {size / wall_hta:.1f} MB/s, peak RSS {hta['maxrss_kb'] / 1024:.0f} MB, kernel total {hta['kernel_total_us'] / 1e3:.1f} ms")
    print(f"prof is {wall_hta / wall:.1f}x faster than HTA on the same file")
    hta_ns = hta["kernel_total_us"] * 1e3
    if abs(prof_kernel_ns - hta_ns) > 1e-4 * max(hta_ns, 1.0):
        raise SystemExit(f"kernel totals disagree: prof {prof_kernel_ns / 1e6:.3f} ms, HTA {hta_ns / 1e6:.3f} ms")
    print(f"kernel totals agree: prof {prof_kernel_ns / 1e6:.3f} ms, HTA {hta_ns / 1e6:.3f} ms")


main()
