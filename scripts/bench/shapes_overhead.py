#!/usr/bin/env python3
"""What reading shapes costs (issue #56): the H200 shapes trace repeated into a large file (each
copy's External ids and correlations shifted, times moved along), once as recorded and once with
`Input Dims`/`Input type`/`Concrete Inputs` stripped; `prof analyze --json` timed on both in one
run, best of 3.

  python3 scripts/bench/shapes_overhead.py target/release/prof [COPIES]
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

prof = sys.argv[1]
copies = int(sys.argv[2]) if len(sys.argv) > 2 else 400
src = os.path.join(os.path.dirname(__file__), "../../tests/fixtures/nvidia/h200-shapes/shapes.pt.trace.json.gz")
doc = json.load(gzip.open(src))
events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
span = max(e["ts"] + e.get("dur", 0) for e in events) - min(e["ts"] for e in events) + 100


def build(keep_shapes):
    out = []
    for c in range(copies):
        for e in events:
            e = dict(e, ts=e["ts"] + c * span)
            args = dict(e.get("args", {}))
            for key in ("External id", "correlation"):
                if key in args:
                    args[key] = args[key] + c * 1_000_000
            if not keep_shapes:
                for key in ("Input Dims", "Input type", "Concrete Inputs", "Input Strides"):
                    args.pop(key, None)
            e["args"] = args
            out.append(e)
    return dict(doc, traceEvents=out)


def best(path):
    times = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([prof, "analyze", path, "--phase", "all", "--json"], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return min(times)


with tempfile.TemporaryDirectory() as d:
    paths = {}
    for keep in (True, False):
        p = os.path.join(d, f"shapes_{keep}.json")
        with open(p, "w") as f:
            json.dump(build(keep), f)
        paths[keep] = p
    sizes = {k: os.path.getsize(p) / 1e6 for k, p in paths.items()}
    with_shapes, without = best(paths[True]), best(paths[False])
    print(f"{copies} copies, {len(events) * copies} events: with shapes {sizes[True]:.0f} MB in {with_shapes:.2f} s, "
          f"stripped {sizes[False]:.0f} MB in {without:.2f} s; ratio {with_shapes / without:.2f}")
