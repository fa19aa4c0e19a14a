#!/usr/bin/env python3
"""Runs `prof analyze PATH` (text and --json) on every fixture (files and directories under
tests/fixtures) and checks the answer's promises (issue #49):

- the first 6 lines of the text hold the headline (`answer:`) and the next step (`next:`);
- no report holds both an idle / host-bound headline and a deep-dive suggestion;
- the JSON answer's time account adds up to its wall time exactly;
- below the evidence floor there is no deep-dive suggestion.

It prints one line per fixture (verdict, share, headline) so the answers can be read side by
side, and exits non-zero on any broken promise:

    python3 scripts/answers_check.py PROF [tests/fixtures]
"""
import json
import os
import subprocess
import sys

from fixture_paths import fixture_paths


def run(prof, path, *flags):
    return subprocess.run([prof, "analyze", *flags, path], capture_output=True, timeout=600)


def main():
    prof = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures"
    paths = fixture_paths(root)
    broken, answered, refused = [], 0, 0
    for path in paths:
        text = run(prof, path)
        if text.returncode != 0:
            refused += 1
            continue
        out = text.stdout.decode("utf-8", "replace")
        if out.startswith("ranks") or "slowest rank" in out[:2000] or '"kernels"' in out[:200]:
            continue
        doc = run(prof, path, "--json")
        try:
            doc = json.loads(doc.stdout)
        except ValueError:
            broken.append((path, "--json is not JSON"))
            continue
        if doc.get("schema") != "prof.breakdown.v1":
            continue
        answered += 1
        head = out.splitlines()[:6]
        if not any(l.startswith("answer: ") for l in head) or not any(l.strip().startswith("next: ") for l in head):
            broken.append((path, "no answer/next in the first 6 lines"))
        answer = doc.get("answer")
        if answer is None:
            broken.append((path, "no answer in the JSON"))
            continue
        verdict = answer["verdict"]
        verdict = verdict if isinstance(verdict, str) else json.dumps(verdict)
        idle = "idle" in verdict or "host-bound" in answer["headline"]
        if idle and "prof deep-dive" in out:
            broken.append((path, "idle headline and a deep-dive suggestion"))
        if not answer["evidence"]["enough"] and doc.get("deep_dive"):
            broken.append((path, "deep dive below the evidence floor"))
        account = answer.get("account")
        if account and sum(p["ns"] for p in account["parts"]) != account["wall_ns"]:
            broken.append((path, "account does not add up"))
        share = answer.get("share_pct")
        share = f"{share:5.1f}" if share is not None else "    -"
        print(f"{os.path.relpath(path, root)[:60]:60}  {verdict[:28]:28} {share}  {answer['headline'][:90]}")
    print(f"\n{answered} answered, {refused} refused (not an artifact alone), {len(broken)} broken")
    for path, why in broken:
        print(f"BROKEN {path}: {why}")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
