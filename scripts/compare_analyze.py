#!/usr/bin/env python3
"""Runs two prof binaries' `analyze --phase all --json` on every fixture (files and directories
under tests/fixtures) and prints where their answers differ: exit status, op count, device time,
the ranked kernels, or (rank jobs) the ranks. Used to check that a change of the loaders left
every number as it was:

    python3 scripts/compare_analyze.py OLD_PROF NEW_PROF [tests/fixtures]
"""
import json
import subprocess
import sys

from fixture_paths import fixture_paths


def answer(prof, path):
    out = subprocess.run([prof, "analyze", "--phase", "all", "--json", path], capture_output=True, timeout=300)
    if out.returncode != 0:
        return ("exit", out.returncode)
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        return ("not json", out.stdout[:80])
    if doc.get("schema") == "prof.ranks.v1":
        return ("ranks", [(r["rank"], r.get("busy_ns"), r.get("split_from")) for r in doc["ranks"]])
    if doc.get("schema") == "prof.deep-dive.v1":
        return ("deep-dive", len(doc.get("kernels", [])))
    s = doc["summary"]
    kernels = [(k["name"], k["calls"], k["total_ns"]) for k in s["kernels"]]
    return ("breakdown", s["ops"], s["device_ns"], kernels)


def main():
    old, new = sys.argv[1], sys.argv[2]
    root = sys.argv[3] if len(sys.argv) > 3 else "tests/fixtures"
    paths = fixture_paths(root)
    same = differ = 0
    for path in paths:
        a, b = answer(old, path), answer(new, path)
        if a == b:
            same += 1
            continue
        differ += 1
        short = lambda x: str(x)[:160]
        print(f"{path}\n  old: {short(a)}\n  new: {short(b)}")
    print(f"{same} paths answered alike, {differ} differ")


if __name__ == "__main__":
    main()
