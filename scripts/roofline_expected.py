#!/usr/bin/env python3
"""Independent check of prof's roofline (issue #56): from a PyTorch trace recorded with
record_shapes=True, join each kernel to the op that launched it by `External id`, count the
op's FLOPs by hand (GEMMs 2*M*N*K, attention 4*B*H*Sq*Sk*D halved when causal) and divide by
its kernels' summed time. Written apart from prof's Rust model; prints JSON rows
{op, flops_per_call, calls, kernel_us, tflops} for the GEMM and attention ops it finds.

  python3 scripts/roofline_expected.py TRACE.json[.gz] > expected.json
"""
import collections
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ext(event):
    args = event.get("args", {})
    return args.get("External id", args.get("external id"))


def flops(op):
    name = op["name"].removeprefix("aten::")
    dims = op["args"].get("Input Dims", [])
    concrete = op["args"].get("Concrete Inputs", [])
    if name in ("mm", "_scaled_mm"):
        (m, k), (_, n) = dims[0], dims[1]
        return 2 * m * n * k
    if name == "addmm":
        (m, k), (_, n) = dims[1], dims[2]
        return 2 * m * n * k
    if name == "bmm":
        (b, m, k), (_, _, n) = dims[0], dims[1]
        return 2 * b * m * n * k
    if name == "cudnn_convolution":
        # (input, weight, padding, stride, dilation, groups, ...): out = (in + 2p - dil*(r-1) - 1) / s + 1
        (n, c, *spatial), (k, _, *window) = dims[0], dims[1]
        pad, stride, dil = (json.loads(concrete[i]) for i in (2, 3, 4))
        groups = int(concrete[5])
        out = [(x + 2 * p - dl * (r - 1) - 1) // st + 1 for x, p, st, dl, r in zip(spatial, pad, stride, dil, window)]
        total = 2 * n * k * (c // groups)
        for o in out:
            total *= o
        for r in window:
            total *= r
        return total
    attention = {"_cudnn_attention_forward": (True, 10), "_flash_attention_forward": (False, 8),
                 "_scaled_dot_product_flash_attention": (True, 4)}
    if name in attention:
        bhsd, causal_at = attention[name]
        q, k = dims[0], dims[1]
        b, h, sq, d = q if bhsd else (q[0], q[2], q[1], q[3])
        sk = k[2] if bhsd else k[1]
        total = 4 * b * h * sq * sk * d
        return total // 2 if concrete[causal_at] == "True" else total
    return None


def main(path):
    events = load(path)
    ops = {ext(e): e for e in events if e.get("cat") in ("cpu_op", "Operator") and ext(e) is not None
           and "Input Dims" in e.get("args", {})}
    launched = collections.Counter()
    time_us = collections.Counter()
    for e in events:
        if e.get("cat", "").lower() == "kernel" and ext(e) in ops:
            launched[ext(e)] += 1
            time_us[ext(e)] += e["dur"]
    rows = collections.defaultdict(lambda: [0, 0.0, 0])
    for x, n in launched.items():
        op = ops[x]
        f = flops(op)
        if f is None:
            continue
        row = rows[(op["name"], f, json.dumps(op["args"]["Input Dims"]))]
        row[0] += 1
        row[1] += time_us[x]
    out = [{"op": name, "flops_per_call": f, "calls": calls, "kernel_us": round(us, 3),
            "tflops": f * calls / (us * 1e-6) / 1e12}
           for (name, f, _), (calls, us, _) in sorted(rows.items())]
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
