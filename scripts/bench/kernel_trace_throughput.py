#!/usr/bin/env python3
"""Throughput and peak memory of `prof analyze` on 10-million-kernel traces, against a peer.

  rocprofv3: a kernel_trace.csv built by repeating the rows of the real
             tests/fixtures/amd/rocprofv3/sdk1.0_kernel_trace.csv (ROCprofiler-SDK 1.0), each copy's
             Start/End_Timestamp shifted by the copy's index x (the fixture's span + 1 us) and its
             Dispatch_Id / Correlation_Id by the index x 16 (the fixture's ids are 1..13), so rows
             stay in time order and the ids count up as one process's do (until 2026-12-05 the
             shift was x 1,000,000: ids to 1.1e12, past any recorded trace's; such ids cost prof
             more, see the README).
             Peers: pandas read_csv + groupby('Kernel_Name') of End - Start (count, sum); polars
             scan_csv().group_by('Kernel_Name').agg(count, sum) collected; DuckDB
             SELECT Kernel_Name, count(*), sum(End_Timestamp - Start_Timestamp) FROM read_csv(...).
  nsys:      a copy of the real nsys 2024.6.2 SQLite export
             tests/fixtures/nvidia/nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite
             with its one CUPTI_ACTIVITY_KIND_KERNEL row inserted again and again (python sqlite3),
             start/end shifted by the index x 3 ms (the kernel takes 2.52 ms) and correlationId by
             the index. Peers: python sqlite3 `SELECT demangledName, count(*), sum(end - start)
             ... GROUP BY demangledName` joined to StringIds (the GROUP BY runs inside SQLite);
             polars reading the same rows through connectorx, then group_by; DuckDB's sqlite
             scanner on the same query where its extension loads (it is downloaded on first
             use: offline it is skipped, and the script says so).
  nsys-launches: the same, and the fixture's one cudaLaunchKernel row of
             CUPTI_ACTIVITY_KIND_RUNTIME inserted with each kernel, shifted alike (start and end
             by the index x 3 ms, correlationId by 10 + 2 x the index in both tables, clear of
             the fixture's other calls' ids): a launch per kernel, as every real export has (the
             plain nsys file has 12 runtime rows for 10 M kernels). Peers read the same rows and
             join each kernel to its launch: python sqlite3 `GROUP BY demangledName` over the
             join (count, sum of durations, sum of launch delays); polars reading both tables
             through connectorx, joined on correlationId, then group_by.
Each run prints wall time, MB/s, M rows/s and peak RSS (/usr/bin/time) of prof and of each
peer, checks that all give the same kernel count and total time (exits non-zero if not), and
ends with prof's ratio to the fastest peer. polars and DuckDB are run when importable
(`pip install --target DIR polars duckdb pandas connectorx`, then PYTHONPATH=DIR).
Usage: kernel_trace_throughput.py PROF_BINARY rocprofv3|nsys|nsys-launches [KERNELS] [--keep] [--prof-only]
The big file lives under /tmp/prof-bench and is deleted at the end unless --keep.
"""
import csv
import json
import os
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
from measure import repeat_file, run_measured, settle  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROCPROF = os.path.join(ROOT, "tests/fixtures/amd/rocprofv3/sdk1.0_kernel_trace.csv")
NSYS = os.path.join(ROOT, "tests/fixtures/nvidia/nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite")
NSYS_SHIFT_NS = 3_000_000

PANDAS = """
import json, resource, sys, time
t0 = time.monotonic()
import pandas as pd
df = pd.read_csv(sys.argv[1])
dur = df['End_Timestamp'] - df['Start_Timestamp']
by_name = dur.groupby(df['Kernel_Name']).agg(['count', 'sum'])
out = {"wall_s": time.monotonic() - t0, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
       "kernels": int(by_name['count'].sum()), "total_ns": int(by_name['sum'].sum()), "names": len(by_name)}
print(json.dumps(out))
"""

POLARS = """
import json, resource, sys, time
t0 = time.monotonic()
import polars as pl
by_name = (pl.scan_csv(sys.argv[1])
           .group_by('Kernel_Name')
           .agg(pl.len().alias('count'), (pl.col('End_Timestamp') - pl.col('Start_Timestamp')).sum().alias('sum'))
           .collect())
out = {"wall_s": time.monotonic() - t0, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
       "kernels": int(by_name['count'].sum()), "total_ns": int(by_name['sum'].sum()), "names": by_name.height}
print(json.dumps(out))
"""

DUCKDB_CSV = """
import json, resource, sys, time
t0 = time.monotonic()
import duckdb
rows = duckdb.sql("SELECT Kernel_Name, count(*), sum(End_Timestamp - Start_Timestamp) FROM read_csv('%s') "
                  "GROUP BY Kernel_Name" % sys.argv[1].replace("'", "''")).fetchall()
out = {"wall_s": time.monotonic() - t0, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
       "kernels": sum(r[1] for r in rows), "total_ns": int(sum(r[2] for r in rows)), "names": len(rows)}
print(json.dumps(out))
"""

POLARS_SQLITE = """
import json, resource, sys, time
t0 = time.monotonic()
import polars as pl
df = pl.read_database_uri('SELECT demangledName, start, "end" FROM CUPTI_ACTIVITY_KIND_KERNEL', "sqlite://" + sys.argv[1],
                          engine="connectorx")
by_name = df.group_by("demangledName").agg(pl.len().alias("count"), (pl.col("end") - pl.col("start")).sum().alias("sum"))
out = {"wall_s": time.monotonic() - t0, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
       "kernels": int(by_name["count"].sum()), "total_ns": int(by_name["sum"].sum()), "names": by_name.height}
print(json.dumps(out))
"""

DUCKDB_SQLITE = """
import json, sys
import duckdb
c = duckdb.connect()
try:
    c.execute("INSTALL sqlite; LOAD sqlite;")
except Exception as e:
    print(json.dumps({"skipped": "DuckDB's sqlite extension did not load: " + str(e).splitlines()[0][:160]}))
    sys.exit(0)
c.execute("ATTACH '%s' AS n (TYPE sqlite, READ_ONLY)" % sys.argv[1].replace("'", "''"))
rows = c.execute('SELECT s.value, count(*), sum(k."end" - k.start) FROM n.CUPTI_ACTIVITY_KIND_KERNEL k '
                 'JOIN n.StringIds s ON s.id = k.demangledName GROUP BY s.value').fetchall()
print(json.dumps({"kernels": sum(r[1] for r in rows), "total_ns": int(sum(r[2] for r in rows)), "names": len(rows)}))
"""

POLARS_SQLITE_LAUNCHES = """
import json, resource, sys, time
t0 = time.monotonic()
import polars as pl
uri = "sqlite://" + sys.argv[1]
k = pl.read_database_uri('SELECT demangledName, start, "end", correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL', uri,
                         engine="connectorx")
r = pl.read_database_uri('SELECT correlationId, start AS launch FROM CUPTI_ACTIVITY_KIND_RUNTIME', uri,
                         engine="connectorx")
j = k.join(r, on="correlationId", how="left")
by_name = j.group_by("demangledName").agg(pl.len().alias("count"), (pl.col("end") - pl.col("start")).sum().alias("sum"),
                                          (pl.col("start") - pl.col("launch")).sum().alias("delay"))
out = {"wall_s": time.monotonic() - t0, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
       "kernels": int(by_name["count"].sum()), "total_ns": int(by_name["sum"].sum()), "names": by_name.height}
print(json.dumps(out))
"""

SQLITE_LAUNCHES = """
import json, sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
rows = c.execute("SELECT s.value, count(*), sum(k.end - k.start), sum(k.start - r.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                 "JOIN StringIds s ON s.id = k.demangledName GROUP BY k.demangledName").fetchall()
print(json.dumps({"kernels": sum(r[1] for r in rows), "total_ns": sum(r[2] for r in rows), "names": len(rows)}))
"""

SQLITE = """
import json, sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
rows = c.execute("SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "JOIN StringIds s ON s.id = k.demangledName GROUP BY k.demangledName").fetchall()
print(json.dumps({"kernels": sum(r[1] for r in rows), "total_ns": sum(r[2] for r in rows), "names": len(rows)}))
"""


def build_rocprof(kernels, path):
    with open(ROCPROF, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    start, end = col["Start_Timestamp"], col["End_Timestamp"]
    span = max(int(r[end]) for r in body) - min(int(r[start]) for r in body) + 1000
    body.sort(key=lambda r: int(r[start]))
    copies = -(-kernels // len(body))
    if os.path.exists(path):
        return copies * len(body)
    shifted = {start: span, end: span, col["Dispatch_Id"]: 16, col["Correlation_Id"]: 16}
    # rocprofv3 quotes text fields and leaves numbers bare, as the fixture shows.
    templates = []
    for r in body:
        parts = ["{%d}" % i if i in shifted else (v if v.isdigit() else '"' + v + '"') for i, v in enumerate(r)]
        templates.append((",".join(parts) + "\n", {i: int(r[i]) for i in shifted}))

    def block(i):
        out = []
        for template, base in templates:
            values = {str(k): v + i * shifted[k] for k, v in base.items()}
            out.append(template.format(*[values.get(str(j), "") for j in range(len(header))]))
        return out

    repeat_file(path, [",".join('"' + h + '"' for h in header) + "\n"], copies, block)
    return copies * len(body)


def build_nsys(kernels, path, launches=False):
    if os.path.exists(path):
        return kernels
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(NSYS, path + ".tmp")
    c = sqlite3.connect(path + ".tmp")
    names = [r[1] for r in c.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    (row,) = c.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    i_corr = names.index("correlationId")
    c.execute("PRAGMA journal_mode=OFF")
    c.execute("PRAGMA synchronous=OFF")

    # With launches, ids step by 2 (another call between launches, as in real runs) past the
    # fixture's own calls' ids, which no copy may take.
    step, gap = (2, 10) if launches else (1, 0)

    def copies(table, first):
        """`first` (a row of `table`) again for each later kernel, shifted in time and id."""
        cols = [r[1] for r in c.execute(f"PRAGMA table_info({table})")]
        start, end, corr = cols.index("start"), cols.index("end"), cols.index("correlationId")

        def rows():
            for i in range(1, kernels):
                r = list(first)
                r[start] += i * NSYS_SHIFT_NS
                r[end] += i * NSYS_SHIFT_NS
                r[corr] += gap + step * i
                yield r

        marks = ",".join("?" * len(cols))
        c.executemany(f"INSERT INTO {table} VALUES ({marks})", rows())

    copies("CUPTI_ACTIVITY_KIND_KERNEL", row)
    if launches:
        # The kernel's own launch call (its correlationId), copied with each kernel.
        (launch,) = c.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = ?",
                              (row[i_corr],)).fetchall()
        copies("CUPTI_ACTIVITY_KIND_RUNTIME", launch)
    c.commit()
    c.close()
    os.rename(path + ".tmp", path)
    return kernels


def importable(module):
    try:
        return __import__(module).__version__
    except ImportError:
        return None


def main():
    prof, kind = sys.argv[1], sys.argv[2]
    kernels = int(sys.argv[3]) if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else 10_000_000
    peers = []
    if kind == "rocprofv3":
        path = f"/tmp/prof-bench/rocprofv3-{kernels}/kernel_trace.csv"
        rows = build_rocprof(kernels, path)
        for module, label, script in (("pandas", "read_csv+groupby(Kernel_Name)", PANDAS),
                                      ("polars", "scan_csv().group_by().agg()", POLARS),
                                      ("duckdb", "read_csv GROUP BY", DUCKDB_CSV)):
            version = importable(module)
            if version:
                peers.append((f"{module} {version} {label}", script))
            else:
                print(f"{module}: not importable, skipped")
    elif kind == "nsys":
        path = f"/tmp/prof-bench/nsys-{kernels}/report.sqlite"
        rows = build_nsys(kernels, path)
        peers.append((f"python sqlite3 {sqlite3.sqlite_version} GROUP BY demangledName", SQLITE))
        if importable("polars") and importable("connectorx"):
            peers.append((f"polars {importable('polars')} read_database_uri (connectorx) + group_by", POLARS_SQLITE))
        else:
            print("polars with connectorx: not importable, skipped")
        version = importable("duckdb")
        if version:
            peers.append((f"duckdb {version} sqlite scanner GROUP BY", DUCKDB_SQLITE))
    elif kind == "nsys-launches":
        path = f"/tmp/prof-bench/nsys-launches-{kernels}/report.sqlite"
        rows = build_nsys(kernels, path, launches=True)
        peers.append((f"python sqlite3 {sqlite3.sqlite_version} kernels LEFT JOIN launches GROUP BY", SQLITE_LAUNCHES))
        if importable("polars") and importable("connectorx"):
            peers.append((f"polars {importable('polars')} both tables via connectorx, join + group_by",
                          POLARS_SQLITE_LAUNCHES))
        else:
            print("polars with connectorx: not importable, skipped")
    else:
        sys.exit("kind must be rocprofv3, nsys or nsys-launches")
    size = os.path.getsize(path) / 1e6
    print(f"file: {path} ({size:.0f} MB, {rows} kernels)")
    settle(path)
    results = []
    try:
        wall, rss, out = run_measured([prof, "analyze", "--json", path])
        cpu = measure.last_cpu_s
        doc = json.loads(out)
        kernels_prof = sum(k["calls"] for k in doc["summary"]["kernels"] if k["kind"] in ("kernel", "communication"))
        total_prof = sum(k["total_ns"] for k in doc["summary"]["kernels"] if k["kind"] in ("kernel", "communication"))
        print(f"prof analyze --json: {wall:.2f} s, {size / wall:.0f} MB/s, {rows / wall / 1e6:.2f} M rows/s, "
              f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MB; {kernels_prof} kernels, {total_prof / 1e9:.3f} s kernel time "
              f"(runs {' / '.join(f'{w:.2f}' for w in measure.last_walls)} s)")
        if "--prof-only" in sys.argv:
            return
        for name, script in peers:
            wall_peer, rss_peer, out = run_measured([sys.executable, "-c", script, path])
            cpu_peer = measure.last_cpu_s
            peer_doc = json.loads(out.strip().splitlines()[-1])
            if "skipped" in peer_doc:
                print(f"{name}: skipped ({peer_doc['skipped']})")
                continue
            print(f"{name}: {wall_peer:.2f} s, {size / wall_peer:.1f} MB/s, {rows / wall_peer / 1e6:.3f} M rows/s, "
                  f"CPU {cpu_peer:.2f} s, peak RSS {rss_peer:.0f} MB; {peer_doc['kernels']} kernels, "
                  f"{peer_doc['total_ns'] / 1e9:.3f} s (runs {' / '.join(f'{w:.2f}' for w in measure.last_walls)} s)")
            if (kernels_prof, total_prof) != (peer_doc["kernels"], peer_doc["total_ns"]):
                sys.exit(f"MISMATCH: prof {kernels_prof} kernels / {total_prof} ns, {name} "
                         f"{peer_doc['kernels']} / {peer_doc['total_ns']}")
            results.append((wall_peer, rss_peer, cpu_peer, name))
    finally:
        if "--keep" not in sys.argv:
            shutil.rmtree(os.path.dirname(path))
    print("agree: kernel count and total kernel time, every peer")
    for wall_peer, rss_peer, cpu_peer, name in sorted(results):
        print(f"  against {name}: prof {wall_peer / wall:.2f}x its speed ({cpu_peer / cpu:.2f}x in CPU time), "
              f"{rss / rss_peer:.2f}x its peak memory")
    if results:
        best = min(results)
        print(f"fastest peer: {best[3]}; prof is {best[0] / wall:.2f}x its speed")


main()
