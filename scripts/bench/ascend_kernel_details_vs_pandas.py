#!/usr/bin/env python3
"""`prof analyze` against pandas on a large Ascend kernel_details.csv, in one run.

Builds a file of ROWS data rows (default 10 million) by repeating the rows of the real
torch_npu export tests/fixtures/ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv
(header once; each copy's `Start Time(us)` shifted by the copy's index x 520,000 us, more than
the fixture's 516,886 us span, so the rows stay in time order), then times on the same file:
  prof:   `prof analyze --json FILE` (kernel summary, families, diagnosis, analysis sections)
  pandas: read_csv(FILE) + groupby(['Type'])['Duration(us)'].agg(['count','sum']) + shares
and prints wall time, MB/s, rows/s and peak RSS (/usr/bin/time) of each, and the ratios.
Both must agree: the op count and total duration, and per op type where prof's JSON has a
per-type table (`analyses`); the script exits non-zero when they differ.
Usage: ascend_kernel_details_vs_pandas.py PROF_BINARY [ROWS] [--keep] [--prof-only]
The file lives under /tmp/prof-bench and is deleted at the end unless --keep.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
from measure import repeat_file, run_measured  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "tests/fixtures/ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv")
START_COLUMN = 7  # `Start Time(us)` in the fixture's header
SHIFT_US = 520_000

PANDAS = """
import json, resource, sys, time
t0 = time.monotonic()
import pandas as pd
df = pd.read_csv(sys.argv[1])
by_type = df.groupby(['Type'])['Duration(us)'].agg(['count', 'sum'])
by_type['share'] = by_type['sum'] / by_type['sum'].sum()
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = {"wall_s": wall, "maxrss_kb": rss, "rows": int(len(df)), "total_us": float(df['Duration(us)'].sum()),
       "types": {str(k): [int(r['count']), float(r['sum']), float(r['share'])] for k, r in by_type.iterrows()}}
print(json.dumps(out))
"""


def fixture_blocks():
    """The header line and, per data row, (text before the start field, integer µs, rest)."""
    with open(SOURCE, newline="") as f:
        lines = f.readlines()
    rows = []
    for line in lines[1:]:
        fields = line.split(",")
        start = fields[START_COLUMN]
        whole, _, frac = start.partition(".")
        if not whole.isdigit() or any('"' in x for x in fields[:START_COLUMN]):
            sys.exit(f"unexpected row in {SOURCE}: {line[:80]}")
        prefix = ",".join(fields[:START_COLUMN]) + ","
        rest = ("." + frac if frac else "") + "," + ",".join(fields[START_COLUMN + 1:])
        rows.append((prefix, int(whole), rest))
    return lines[0], rows


def build(rows_wanted, path):
    header, rows = fixture_blocks()
    copies = -(-rows_wanted // len(rows))
    if os.path.exists(path):
        return copies * len(rows)

    def block(i):
        shift = i * SHIFT_US
        return [f"{p}{w + shift}{r}" for p, w, r in rows]

    repeat_file(path, [header], copies, block)
    return copies * len(rows)


def prof_tables(doc):
    """Every table {name: (count, total_ns)} in prof's `analyses` (per collective, per op type...)."""
    found = []

    def walk(node):
        if isinstance(node, list) and node and all(isinstance(x, dict) for x in node):
            keys = node[0].keys()
            name = next((k for k in ("op_type", "type") if k in keys), None)
            total = next((k for k in ("total_ns", "time_ns") if k in keys), None)
            count = next((k for k in ("calls", "count", "ops") if k in keys), None)
            if name and total and count:
                found.append({x[name]: (x[count], x[total]) for x in node})
                return
        if isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc.get("analyses", {}))
    return found


def main():
    prof = sys.argv[1]
    rows_wanted = int(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 10_000_000
    path = f"/tmp/prof-bench/ascend-kernel-details-{rows_wanted}/kernel_details.csv"
    rows = build(rows_wanted, path)
    size = os.path.getsize(path) / 1e6
    print(f"file: {path} ({size:.0f} MB, {rows} rows)")
    try:
        wall, rss, out = run_measured([prof, "analyze", "--json", path])
        cpu = measure.last_cpu_s
        doc = json.loads(out)
        ops, device_ns = doc["summary"]["ops"], doc["summary"]["device_ns"]
        print(f"prof analyze --json: {wall:.2f} s, {size / wall:.0f} MB/s, {rows / wall / 1e6:.2f} M rows/s, "
              f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MB; {ops} ops, {device_ns / 1e9:.3f} s device time")
        if "--prof-only" in sys.argv:
            return
        wall_pd, rss_pd, out = run_measured([sys.executable, "-c", PANDAS, path])
        cpu_pd = measure.last_cpu_s
        pd_doc = json.loads(out.strip().splitlines()[-1])
        print(f"pandas {__import__('pandas').__version__} read_csv+groupby(Type): {wall_pd:.2f} s, "
              f"{size / wall_pd:.1f} MB/s, {rows / wall_pd / 1e6:.3f} M rows/s, CPU {cpu_pd:.2f} s, peak RSS {rss_pd:.0f} MB; "
              f"{pd_doc['rows']} rows, {pd_doc['total_us'] / 1e6:.3f} s total, {len(pd_doc['types'])} op types")
    finally:
        if "--keep" not in sys.argv:
            os.unlink(path)
            os.rmdir(os.path.dirname(path))
    check(ops, device_ns, pd_doc, prof_tables(doc))
    print(f"prof is {wall_pd / wall:.1f}x faster than pandas in wall time ({cpu_pd / cpu:.1f}x in CPU time) and uses {rss / rss_pd:.3f} of its peak memory "
          f"(1/{rss_pd / rss:.1f})")


def check(ops, device_ns, pd_doc, tables):
    if ops != pd_doc["rows"]:
        sys.exit(f"MISMATCH: prof counted {ops} ops, pandas {pd_doc['rows']} rows")
    if abs(device_ns / 1e3 - pd_doc["total_us"]) > 1e-9 * pd_doc["total_us"] + 1:
        sys.exit(f"MISMATCH: prof device time {device_ns / 1e3} us, pandas {pd_doc['total_us']} us")
    per_type = next((t for t in tables if set(t) == set(pd_doc["types"])), None)
    if per_type:
        for name, (count, total_us, _share) in pd_doc["types"].items():
            got = per_type.get(name)
            if got is None or got[0] != count or abs(got[1] / 1e3 - total_us) > 1e-9 * total_us + 1:
                sys.exit(f"MISMATCH on op type {name}: prof {got}, pandas {count} ops, {total_us} us")
        print(f"agree: op count, total device time and all {len(pd_doc['types'])} per-type totals")
    else:
        print("agree: op count and total device time (prof's JSON has no per-type table to compare)")


main()
