#!/usr/bin/env python3
"""Checks that a restructuring changed no output (issue #48): runs two prof binaries on every
fixture (files and directories under tests/fixtures) and compares, byte for byte, the exit
status, standard output and standard error of

    prof analyze --phase all --json PATH
    prof analyze PATH
    prof analyze --html PAGE PATH   (and the page it writes)

Stderr lines that carry a measured time (`… in 12 ms`) are compared with their numbers masked.
With --page-text the pages are compared by what a reader sees: their text (tags dropped,
entities decoded, whitespace collapsed) and the count of each element, for a change of the
page's markup alone (the pages drawn with maud templates, issue #48).

    python3 scripts/same_output.py [--page-text] OLD_PROF NEW_PROF [tests/fixtures]

Prints each difference (the first differing line of each stream) and exits 1 when any differs.
"""
import html
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from fixture_paths import fixture_paths

RUNS = [["analyze", "--phase", "all", "--json"], ["analyze"], ["analyze", "--html", "PAGE"]]
# Wall-clock figures are the only output allowed to move between two runs of one binary.
TIMED = re.compile(rb"\d+(\.\d+)? ?(ns|us|\xc2\xb5s|ms|s|GB/s|MB/s)\b")


def run(prof, flags, path):
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        out = subprocess.run([prof, *[page if f == "PAGE" else f for f in flags], path], capture_output=True,
                             timeout=600)
        html = open(page, "rb").read() if os.path.exists(page) else b""
        return out.returncode, out.stdout.replace(page.encode(), b"PAGE"), \
            TIMED.sub(b"#", out.stderr.replace(page.encode(), b"PAGE")), html


PAGE_TEXT = "--page-text" in sys.argv


def page_text(page):
    """What a reader sees of a page: its text, whitespace collapsed, and how many of each element."""
    text = page.decode("utf-8", "replace")
    tags = re.findall(r"<([a-z0-9]+)[\s>/]", text)
    counts = " ".join(f"{e}:{tags.count(e)}" for e in sorted(set(tags)))
    visible = html.unescape(re.sub(r"<[^>]*>", " ", text))
    return ("\n".join(visible.split()) + "\n" + counts).encode()


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n      old: {x[:200]!r}\n      new: {y[:200]!r}"
    return f"line {min(len(la), len(lb)) + 1}: one stream ends ({len(la)} vs {len(lb)} lines)"


def compare(old, new, path):
    problems = []
    for flags in RUNS:
        a, b = run(old, flags, path), run(new, flags, path)
        if PAGE_TEXT:
            a, b = (*a[:3], page_text(a[3])), (*b[:3], page_text(b[3]))
        for name, x, y in zip(("exit", "stdout", "stderr", "page"), a, b):
            if x != y:
                what = f"{x} vs {y}" if name == "exit" else first_difference(x, y)
                problems.append(f"  {' '.join(flags)}: {name} differs, {what}")
    return path, problems


def main():
    args = [a for a in sys.argv[1:] if a != "--page-text"]
    old, new = args[0], args[1]
    root = args[2] if len(args) > 2 else "tests/fixtures"
    paths = fixture_paths(root)
    differ = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for path, problems in pool.map(lambda p: compare(old, new, p), paths):
            if problems:
                differ += 1
                print(path)
                print("\n".join(problems))
    print(f"{len(paths) - differ} of {len(paths)} paths gave the same output, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
