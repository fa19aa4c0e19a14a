"""Multi-rank job load time: `prof analyze --json DIR` on a directory of N rank traces (each a
real H200 torch.profiler trace repeated to SIZE_MB, scripts/bench/bigtrace.py), run by two prof
binaries in one session (e.g. one built before ranks were loaded in parallel, and the current
one), each measured on its own for wall time, CPU time and peak RSS.

    python3 scripts/bench/ranks_parallel.py OLD_PROF NEW_PROF [RANKS=8] [SIZE_MB=100]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import bigtrace  # noqa: E402
import measure  # noqa: E402

old, new = sys.argv[1], sys.argv[2]
ranks = int(sys.argv[3]) if len(sys.argv) > 3 else 8
size = int(sys.argv[4]) if len(sys.argv) > 4 else 100
root = os.path.dirname(os.path.abspath(__file__))
source = os.path.join(root, "../../tests/fixtures/nvidia/h200-probe/torch-trace.json")
job = f"/tmp/prof-bench-ranks-{ranks}x{size}"
os.makedirs(job, exist_ok=True)
one = f"/tmp/prof-bench-rank-trace-{size}.json"
bigtrace.build(source, size, one)
for rank in range(ranks):
    link = os.path.join(job, f"rank{rank}.json")
    if not os.path.exists(link):
        os.symlink(one, link)
print(f"{ranks} ranks x {os.path.getsize(one) / 1e6:.0f} MB, {os.cpu_count()} cores")
results = {}
for name, prof in (("old", old), ("new", new), ("old", old), ("new", new)):
    wall, rss, out = measure.run_measured([prof, "analyze", "--json", job])
    results.setdefault(name, []).append((wall, measure.last_cpu_s, rss))
    print(f"{name}: {wall:.2f} s wall, {measure.last_cpu_s:.2f} s CPU, {rss:.0f} MB peak RSS")
best = {name: min(w for w, _, _ in runs) for name, runs in results.items()}
print(f"best wall: old {best['old']:.2f} s, new {best['new']:.2f} s: new {best['old'] / best['new']:.2f}x faster")
