#!/usr/bin/env python3
"""Jobs of many ranks (issue #55): the merge of 1,024 rank summaries and the per-rank reduce.

  python3 scripts/bench/rank_merge.py PROF_BINARY [--ranks 1024] [--reduce-mb 305]

1. Writes the rank summary of the real DLRM rank 0 (tests/fixtures/nvidia/torch/
   tb_dlrm_kineto_8ranks), builds --ranks summaries from it with a slow, a late and a slow-link
   rank planted (rank_job.py), and times `prof analyze --json DIR` three times: wall, peak RSS,
   and whether the three planted ranks were named.
2. Builds a PyTorch trace of about --reduce-mb MB (bigtrace.py, the H200 trace repeated) and
   times `prof analyze --phase all --rank-summary FILE TRACE` on it (the reduce a rank runs
   where it was captured): wall, MB/s, peak RSS.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from bigtrace import build  # noqa: E402


def timed(argv):
    """(wall s, peak RSS MB, stdout) of argv, measured by GNU time."""
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv], capture_output=True, text=True)
        wall = time.monotonic() - start
        if proc.returncode != 0:
            raise SystemExit(f"{argv} failed: {proc.stderr[-2000:]}")
        return wall, int(rss.read().strip().splitlines()[-1]) / 1024, proc.stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("prof")
    p.add_argument("--ranks", type=int, default=1024)
    p.add_argument("--reduce-mb", type=int, default=305)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trace = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/nvidia/torch/tb_dlrm_kineto_8ranks/*")))[0]
        base = os.path.join(tmp, "rank0.rank-summary.json")
        subprocess.run([a.prof, "analyze", "--phase", "all", "--rank-summary", base, "--rank", "0", trace],
                       check=True, capture_output=True)
        job = os.path.join(tmp, "job")
        subprocess.run([sys.executable, os.path.join(HERE, "rank_job.py"), base, job, "--ranks", str(a.ranks),
                        "--slow", "17", "--late", "900", "--link", "42"], check=True)
        size = sum(os.path.getsize(f) for f in glob.glob(os.path.join(job, "*")))
        for _ in range(3):
            wall, rss, out = timed([a.prof, "analyze", "--json", job])
            doc = json.loads(out)
            named = (doc["straggler"] or {}).get("rank"), (doc["late_start"] or {}).get("rank"), \
                [link["rank"] for link in doc["links"]]
            print(f"merge {a.ranks} summaries ({size / 1e6:.0f} MB): {wall:.2f} s, {rss:.0f} MB peak; "
                  f"named slow/late/link: {named} (planted 17, 900, [42])")
        big = os.path.join(tmp, "big.json")
        build(os.path.join(ROOT, "tests/fixtures/nvidia/h200-probe/torch-trace.json"), a.reduce_mb, big)
        mb = os.path.getsize(big) / 1e6
        for _ in range(2):
            wall, rss, _ = timed([a.prof, "analyze", "--phase", "all", "--json", "--rank-summary",
                                  os.path.join(tmp, "big.rank-summary.json"), big])
            print(f"reduce {mb:.0f} MB trace: {wall:.2f} s ({mb / wall:.0f} MB/s), {rss:.0f} MB peak")


if __name__ == "__main__":
    main()
