#!/usr/bin/env python3
"""Sampling cost of `prof util` against nvidia-smi's own samplers, in one run on one machine.

Each sampler runs for the same wall time; we count its samples and its CPU time
(user + system, from getrusage of the finished child) and report CPU per sample and
CPU share of one core. Usage: util_overhead.py PROF_BINARY [SECONDS]
"""
import json
import os
import resource
import subprocess
import sys
import time

prof = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
FIELDS = "index,utilization.gpu,utilization.memory,memory.used,clocks.sm,power.draw,clocks_event_reasons.active"


def measure(name, argv, count_samples):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    samples = count_samples(proc.stdout)
    per_sample_ms = 1000.0 * cpu / samples if samples else float("nan")
    return {"sampler": name, "wall_s": round(wall, 2), "samples": samples, "cpu_s": round(cpu, 3),
            "cpu_per_sample_ms": round(per_sample_ms, 3), "cpu_share_pct": round(100.0 * cpu / wall, 2),
            "rate_hz": round(samples / wall, 1)}


def prof_samples(stdout):
    return json.loads(stdout)["samples"]


def csv_rows(stdout):
    return sum(1 for line in stdout.splitlines() if line and not line.startswith("index"))


def dmon_rows(stdout):
    return sum(1 for line in stdout.splitlines() if line and not line.startswith("#"))


timeout = ["timeout", "-s", "INT", str(seconds)]
results = [
    measure("prof util --interval 10ms (NVML+GPM)", [prof, "util", "--interval", "10ms", "--duration", f"{seconds}s", "--json"], prof_samples),
    measure("prof util --interval 100ms (NVML+GPM)", [prof, "util", "--interval", "100ms", "--duration", f"{seconds}s", "--json"], prof_samples),
    measure("nvidia-smi --query-gpu -lms 10", timeout + ["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv", "-lms", "10"], csv_rows),
    measure("nvidia-smi --query-gpu -lms 100", timeout + ["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv", "-lms", "100"], csv_rows),
    measure("nvidia-smi dmon (1 s minimum)", timeout + ["nvidia-smi", "dmon", "-d", "1"], dmon_rows),
]
print(json.dumps(results, indent=1))
base = results[0]
for r in results[2:]:
    if r["samples"] and base["samples"]:
        print(f"{r['sampler']}: {r['cpu_per_sample_ms'] / base['cpu_per_sample_ms']:.1f}x the CPU per sample of prof at 10 ms")
