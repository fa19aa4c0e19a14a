#!/usr/bin/env python3
"""Compares two `prof.breakdown.v1` documents of the same workload: one from prof's CUPTI
tracer, one from torch.profiler's trace read by `prof analyze`.

The runs have different lengths, so device time is compared per step: total kernel time
divided by the launches of a kernel that runs once per step (work.py's 4096x4096 GEMM, the
top kernel). Also compares the kernel-name sets and each shared kernel's mean duration.
Usage: compare_cupti_torch.py CUPTI.json TORCH.json
"""
import json
import sys

cupti, torch = (json.load(open(p)) for p in sys.argv[1:3])


def kernels(doc):
    return {k["name"]: k for k in doc["summary"]["kernels"] if k["kind"] == "kernel"}


kc, kt = kernels(cupti), kernels(torch)
step_kernel = max(kt.values(), key=lambda k: k["total_ns"])["name"]
per_step = {}
for label, ks in (("cupti", kc), ("torch", kt)):
    steps = ks[step_kernel]["calls"] if step_kernel in ks else 0
    total = sum(k["total_ns"] for k in ks.values())
    per_step[label] = total / steps if steps else float("nan")
shared = sorted(set(kc) & set(kt))
report = {
    "step_kernel": step_kernel,
    "cupti_steps": kc.get(step_kernel, {}).get("calls"),
    "torch_steps": kt[step_kernel]["calls"],
    "device_ns_per_step": per_step,
    "per_step_ratio_cupti_over_torch": per_step["cupti"] / per_step["torch"],
    "torch_kernel_names": len(kt),
    "cupti_kernel_names": len(kc),
    "torch_names_also_in_cupti": len([n for n in kt if n in kc]),
    "mean_ratio_of_shared_kernels": {n[:60]: round(kc[n]["mean_ns"] / kt[n]["mean_ns"], 3) for n in shared},
}
print(json.dumps(report, indent=1))
ok = abs(report["per_step_ratio_cupti_over_torch"] - 1) <= 0.10 and report["torch_names_also_in_cupti"] == len(kt)
print("AGREE within 10 %" if ok else "DISAGREE")
