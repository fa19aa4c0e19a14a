#!/usr/bin/env python3
"""Builds a job of N rank summaries (prof.rank-summary.v1) from one real rank's summary, with
planted causes, for the scale test of `prof analyze DIR` (issue #55).

    python3 scripts/bench/rank_job.py BASE.rank-summary.json OUT_DIR [--ranks 1024] [--repeat 30]
        [--slow R] [--late R] [--link R] [--seed 1]

The base (a real rank's summary: `prof analyze TRACE --rank-summary BASE.rank-summary.json`) is
tiled --repeat times in time (its steps and collectives shifted by its own span), then copied
to every rank with a little jitter (collective arrivals 0-20 us apart, ends 0-5 us apart, as
on a real node). Planted, each only where asked:
  --slow R  rank R computes 30 % longer: it reaches every collective 300 us late and every
            rank's collective ends 300 us later (they wait for it);
  --late R  rank R starts late: its first step and first collective begin 5 ms later (the
            first collective ends 5 ms later everywhere);
  --link R  rank R's collectives end 2 ms after the others' (its transfers are slow).
Prints what it wrote; the merge must name R for each cause and nothing else.
"""
import argparse
import copy
import json
import os
import random

SLOW_NS, LATE_NS, LINK_NS = 300_000, 5_000_000, 2_000_000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("base")
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--slow", type=int)
    p.add_argument("--late", type=int)
    p.add_argument("--link", type=int)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    base = json.load(open(a.base))
    times = [t for s in base["steps"] for t in s] + [t for c in base["collectives"] for t in (c["start_ns"], c["end_ns"])]
    lo, hi = min(times), max(times)
    period = hi - lo + 100_000
    steps = [[s[0] + k * period, s[1] + k * period] for k in range(a.repeat) for s in base["steps"]]
    colls = [dict(c, start_ns=c["start_ns"] + k * period, end_ns=c["end_ns"] + k * period)
             for k in range(a.repeat) for c in base["collectives"]]
    # Every rank's collective end, before jitter: the slow rank delays them all, the late one the first.
    ends = [c["end_ns"] + (SLOW_NS if a.slow is not None else 0) for c in colls]
    if a.late is not None:
        ends[0] += LATE_NS
    os.makedirs(a.out, exist_ok=True)
    for r in range(a.ranks):
        rng = random.Random(a.seed * 1_000_003 + r)
        s = copy.deepcopy(base)
        s["rank"], s["world_size"] = r, a.ranks
        s["steps"] = [list(x) for x in steps]
        s["collectives"] = []
        for i, c in enumerate(colls):
            start = c["start_ns"] + rng.randrange(20_000)
            end = ends[i] + rng.randrange(5_000)
            if r == a.slow:
                start += SLOW_NS
            if r == a.late and i == 0:
                start += LATE_NS
            if r == a.link:
                end += LINK_NS
            s["collectives"].append(dict(c, start_ns=start, end_ns=max(end, start + 1)))
        split = dict(base["split"])
        for key in ("wall_ns", "compute_ns", "communication_ns", "other_ns", "idle_ns"):
            split[key] *= a.repeat
        if r == a.slow:
            extra = split["compute_ns"] * 3 // 10
            split["compute_ns"] += extra
            split["idle_ns"] = max(0, split["idle_ns"] - extra)
        if r == a.late:
            s["steps"][0] = [s["steps"][0][0] + LATE_NS, s["steps"][0][1] + LATE_NS]
        s["split"] = split
        with open(os.path.join(a.out, f"rank{r}.rank-summary.json"), "w") as f:
            json.dump(s, f)
    print(f"{a.ranks} rank summaries in {a.out}: {len(steps)} steps, {len(colls)} collectives each; "
          f"slow {a.slow}, late {a.late}, link {a.link}")


if __name__ == "__main__":
    main()
