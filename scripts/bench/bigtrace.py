"""Large PyTorch profiler traces for benchmarks, built from a real recorded one.

`build(source, size_mb, path)` writes a Kineto/Chrome trace of at least SIZE_MB to PATH by
repeating every event of SOURCE (a .json or .json.gz trace) back to back: copy i is shifted
by i x (the source's span + 1 ms) and its correlation ids and flow ids are offset by
i x 1,000,000, so kernels still link to their launches and copies never overlap. The
metadata (deviceProperties, distributedInfo, ...) is kept once. An existing file of at
least 95 % of the size is reused (delete it to rebuild).
"""
import gzip
import json
import math
import os

ID_STRIDE = 1_000_000


def load(source):
    """The source trace as a dict (gzip by extension)."""
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rt") as f:
        return json.load(f)


def build(source, size_mb, path):
    """Write SIZE_MB (rounded up to whole copies) of repeated SOURCE events to PATH; returns the
    number of copies, or None when an existing file was reused."""
    if os.path.exists(path) and os.path.getsize(path) >= size_mb * 1e6 * 0.95:
        return None
    doc = load(source)
    events = doc["traceEvents"]
    starts = [float(e["ts"]) for e in events if "ts" in e]
    ends = [float(e["ts"]) + float(e.get("dur", 0) or 0) for e in events if "ts" in e]
    span = (max(ends) - min(starts)) + 1000.0
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    one = sum(len(json.dumps(e)) + 2 for e in events)
    copies = max(1, math.ceil(size_mb * 1e6 / one))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "w") as out:
        out.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        first = True
        for i in range(copies):
            shift = i * span
            for e in events:
                e2 = dict(e)
                if "ts" in e2:
                    e2["ts"] = round(float(e2["ts"]) + shift, 3)
                args = e2.get("args")
                if isinstance(args, dict) and "correlation" in args:
                    args = dict(args)
                    args["correlation"] = args["correlation"] + i * ID_STRIDE
                    e2["args"] = args
                if isinstance(e2.get("id"), int) and e2.get("ph") in ("s", "f"):
                    e2["id"] = e2["id"] + i * ID_STRIDE
                out.write(("" if first else ",\n") + json.dumps(e2))
                first = False
        out.write("\n]}\n")
    os.rename(path + ".tmp", path)
    return copies
