#!/usr/bin/env python3
"""Device check for `prof exporter` (issue #54): scrape /metrics, read nvidia-smi at the same
moment (independently of prof: its own NVML query), and compare each value. Prints one line per
value and exits non-zero on a mismatch beyond the stated tolerance.

  python3 exporter_check.py URL PHASE   # PHASE: idle or busy (the verdict expected)
"""
import subprocess
import sys
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families

url, phase = sys.argv[1], sys.argv[2]
text = urllib.request.urlopen(url, timeout=10).read().decode()
smi = subprocess.run(
    ["nvidia-smi", "--query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,power.limit,"
     "clocks.sm,clocks.max.sm,temperature.gpu", "--format=csv,noheader,nounits"],
    capture_output=True, text=True, check=True).stdout.split("\n")[0].split(", ")
idx, util, used, total, power, limit, sm, sm_max, temp = smi
families = {f.name: f for f in text_string_to_metric_families(text)}


def value(name, **labels):
    family = families.get(name)
    for s in family.samples if family else []:
        if s.labels.get("device") == idx and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None


checks = [
    ("utilization", value("prof_device_utilization_ratio") * 100, float(util), 20 if phase == "busy" else 5),
    ("memory used MiB", value("prof_device_memory_used_bytes") / 2**20, float(used), max(64, float(used) * 0.02)),
    ("memory total MiB", value("prof_device_memory_total_bytes") / 2**20, float(total), 1),
    ("power W", value("prof_device_power_watts"), float(power), max(25, float(power) * 0.15)),
    ("power limit W", value("prof_device_power_limit_watts"), float(limit), 1),
    ("SM clock MHz", value("prof_device_sm_clock_hertz") / 1e6, float(sm), max(60, float(sm) * 0.1)),
    ("SM clock max MHz", value("prof_device_sm_clock_max_hertz") / 1e6, float(sm_max), 1),
    ("temperature C", value("prof_device_temperature_celsius"), float(temp), 3),
]
bad = 0
for name, ours, theirs, tol in checks:
    ok = abs(ours - theirs) <= tol
    bad += not ok
    print(f"{phase:5s} {name:18s} prof {ours:10.1f}  nvidia-smi {theirs:10.1f}  (±{tol:g}) {'ok' if ok else 'MISMATCH'}")
verdicts = {s.labels["verdict"]: s.value for s in families["prof_device_verdict"].samples if s.labels["device"] == idx}
held = [k for k, v in verdicts.items() if v == 1]
sm_act = value("prof_device_sm_activity_ratio")
print(f"{phase:5s} verdict {held} (expected {phase}); SM activity {sm_act}; families {len(families)}")
want = {"idle": ["idle"], "busy": ["busy", "clock_limited"]}[phase]
bad += not any(h in want for h in held)
sys.exit(1 if bad else 0)
