#!/usr/bin/env python3
"""`prof analyze` against pandas on a large Ascend kernel_details.csv, in one run.

Builds a file of ROWS data rows (default 10 million) by repeating the rows of the real
torch_npu export tests/fixtures/ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv
(header once; each copy's `Start Time(us)` shifted by the copy's index x 520,000 us, more than
the fixture's 516,886 us span, so the rows stay in time order), then times on the same file:
  prof full:    `prof analyze --json FILE` (kernel summary, families, diagnosis, every analysis section)
  prof summary: `prof analyze --summary-only --json FILE` (kernel, family and per-op-type tables,
                aggregated while the file streams, no timeline)
  pandas:       read_csv(FILE) + groupby(['Type'])['Duration(us)'].agg(['count','sum']) + shares
  polars:       scan_csv(FILE).group_by('Type').agg(count, sum), collected (the strongest peer measured)
  DuckDB:       SELECT Type, count(*), sum("Duration(us)") FROM read_csv_auto(FILE) GROUP BY Type
and prints wall time, MB/s, rows/s, CPU time and peak RSS (/usr/bin/time) of each, and the
ratios. pandas' wall time is the one its script measures around that work; after it, the
script sums the durations again as integer nanoseconds (round(us x 1000) per row, as prof
reads them) so the check below is exact. Every prof run must agree with pandas on the op
count and total duration, and the summary run on every op type's count and total (its
`analyses.op_types`); the script exits non-zero when they differ.
Usage: ascend_kernel_details_vs_pandas.py PROF_BINARY [ROWS] [--keep] [--prof-only] [--summary-only]
(--summary-only: skip the full `prof analyze` run). polars and DuckDB are run when importable
(`pip install --target DIR polars duckdb` and PYTHONPATH=DIR); their op count and total must
equal pandas'. The last lines give each prof run's ratio to the fastest peer.
The file lives under /tmp/prof-bench and is deleted at the end unless --keep.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
from measure import repeat_file, run_measured, settle  # noqa: E402

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
# Outside the timed part: the same sums in integer ns, for an exact comparison.
ns = (df['Duration(us)'] * 1000).round().astype('int64')
ns_by_type = ns.groupby(df['Type']).sum()
out = {"wall_s": wall, "maxrss_kb": rss, "rows": int(len(df)), "total_us": float(df['Duration(us)'].sum()),
       "total_ns": int(ns.sum()),
       "types": {str(k): [int(r['count']), float(r['sum']), float(r['share']), int(ns_by_type[k])]
                 for k, r in by_type.iterrows()}}
print(json.dumps(out))
"""


POLARS = """
import json, resource, sys, time
t0 = time.monotonic()
import polars as pl
out = (pl.scan_csv(sys.argv[1]).group_by('Type')
       .agg(pl.len().alias('count'), pl.col('Duration(us)').sum().alias('sum')).collect())
wall = time.monotonic() - t0
print(json.dumps({"wall_s": wall, "rows": int(out['count'].sum()), "total_us": float(out['sum'].sum()),
                  "types": len(out), "version": pl.__version__}))
"""

DUCKDB = """
import json, sys, time
t0 = time.monotonic()
import duckdb
rows = duckdb.sql(f"SELECT Type, count(*), sum(\\"Duration(us)\\") FROM read_csv_auto('{sys.argv[1]}') GROUP BY Type").fetchall()
wall = time.monotonic() - t0
print(json.dumps({"wall_s": wall, "rows": sum(r[1] for r in rows), "total_us": float(sum(r[2] for r in rows)),
                  "types": len(rows), "version": duckdb.__version__}))
"""


def peer(name, script, path, size, rows, pd_doc):
    """Runs a peer's script when its library imports; returns (name, wall, cpu, rss) or None."""
    probe = __import__("subprocess").run([sys.executable, "-c", f"import {name.lower()}"], capture_output=True)
    if probe.returncode != 0:
        print(f"{name}: not installed, skipped")
        return None
    _, rss, out = run_measured([sys.executable, "-c", script, path])
    cpu = measure.last_cpu_s
    doc = json.loads(out.strip().splitlines()[-1])
    wall = doc["wall_s"]
    print(f"{name} {doc['version']}: {wall:.2f} s, {size / wall:.0f} MB/s, {rows / wall / 1e6:.2f} M rows/s, "
          f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MB; {doc['rows']} rows, {doc['types']} op types")
    if doc["rows"] != pd_doc["rows"] or abs(doc["total_us"] - pd_doc["total_us"]) > 1e-6 * pd_doc["total_us"]:
        sys.exit(f"MISMATCH ({name}): {doc['rows']} rows, {doc['total_us']} us; pandas {pd_doc['rows']}, {pd_doc['total_us']}")
    return (name, wall, cpu, rss)


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
    settle(path)
    runs = []
    try:
        commands = [("prof analyze --json", [prof, "analyze", "--json", "--json-full", path]),
                    ("prof analyze --summary-only --json", [prof, "analyze", "--summary-only", "--json", "--json-full", path])]
        if "--summary-only" in sys.argv:
            commands = commands[1:]
        for label, argv in commands:
            wall, rss, out = run_measured(argv)
            cpu = measure.last_cpu_s
            doc = json.loads(out)
            ops, device_ns = doc["summary"]["ops"], doc["summary"]["device_ns"]
            print(f"{label}: {wall:.2f} s, {size / wall:.0f} MB/s, {rows / wall / 1e6:.2f} M rows/s, "
                  f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MB; {ops} ops, {device_ns / 1e9:.3f} s device time")
            runs.append((label, wall, cpu, rss, ops, device_ns, prof_tables(doc)))
        if "--prof-only" in sys.argv:
            return
        _, rss_pd, out = run_measured([sys.executable, "-c", PANDAS, path])
        cpu_pd = measure.last_cpu_s
        pd_doc = json.loads(out.strip().splitlines()[-1])
        wall_pd = pd_doc["wall_s"]
        print(f"pandas {__import__('pandas').__version__} read_csv+groupby(Type): {wall_pd:.2f} s, "
              f"{size / wall_pd:.1f} MB/s, {rows / wall_pd / 1e6:.3f} M rows/s, CPU {cpu_pd:.2f} s, peak RSS {rss_pd:.0f} MB; "
              f"{pd_doc['rows']} rows, {pd_doc['total_us'] / 1e6:.3f} s total, {len(pd_doc['types'])} op types")
        peers = [("pandas", wall_pd, cpu_pd, rss_pd)]
        peers += [p for p in (peer("polars", POLARS, path, size, rows, pd_doc),
                              peer("DuckDB", DUCKDB, path, size, rows, pd_doc)) if p]
    finally:
        if "--keep" not in sys.argv:
            os.unlink(path)
            os.rmdir(os.path.dirname(path))
    for label, wall, cpu, rss, ops, device_ns, tables in runs:
        check(label, ops, device_ns, pd_doc, tables, required="--summary-only" in label)
        print(f"{label} is {wall_pd / wall:.1f}x faster than pandas in wall time ({cpu_pd / cpu:.1f}x in CPU time) "
              f"and uses {rss / rss_pd:.3f} of its peak memory (1/{rss_pd / rss:.1f})")
        best = min(peers, key=lambda p: p[1])
        print(f"{label} against the fastest peer, {best[0]} ({best[1]:.2f} s, {best[3]:.0f} MB): "
              f"{best[1] / wall:.2f}x its speed, {rss / best[3]:.2f} of its peak memory")


def check(label, ops, device_ns, pd_doc, tables, required):
    if ops != pd_doc["rows"]:
        sys.exit(f"MISMATCH ({label}): prof counted {ops} ops, pandas {pd_doc['rows']} rows")
    if device_ns != pd_doc["total_ns"]:
        sys.exit(f"MISMATCH ({label}): prof device time {device_ns} ns, pandas {pd_doc['total_ns']} ns")
    per_type = next((t for t in tables if set(t) == set(pd_doc["types"])), None)
    if per_type:
        for name, (count, _total_us, _share, total_ns) in pd_doc["types"].items():
            got = per_type.get(name)
            if got is None or got[0] != count or got[1] != total_ns:
                sys.exit(f"MISMATCH ({label}) on op type {name}: prof {got}, pandas {count} ops, {total_ns} ns")
        print(f"{label} agrees exactly: op count, total device time and all {len(pd_doc['types'])} per-type "
              "counts and totals (ns)")
    elif required:
        sys.exit(f"MISMATCH ({label}): no per-type table with pandas' {len(pd_doc['types'])} op types")
    else:
        print(f"{label} agrees exactly: op count and total device time (its JSON has no per-type table)")


main()
