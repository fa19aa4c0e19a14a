"""Shared helpers of the benchmark scripts: run a command under /usr/bin/time for its wall
time and peak RSS, so each tool in a paired run is measured on its own (getrusage of the
children would mix the two)."""
import os
import subprocess
import sys
import time

last_cpu_s = 0.0


def run_measured(argv, env=None):
    """Runs `argv`; returns (wall seconds, peak RSS in MB, stdout). Exits on failure. The
    CPU time (user + system) is kept in `last_cpu_s`: on a shared machine, wall time includes
    waiting for a core, CPU time does not."""
    global last_cpu_s
    stats = f"/tmp/prof-bench-time.{os.getpid()}"
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%M %U %S"] + argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - start
    with open(stats) as f:
        rss_kb, user, system = f.read().strip().splitlines()[-1].split()
    rss_kb, last_cpu_s = int(rss_kb), float(user) + float(system)
    os.unlink(stats)
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, rss_kb / 1024, proc.stdout


def repeat_file(path, header_lines, copies, rewrite):
    """Writes `header_lines` once, then `copies` blocks, block i being `rewrite(i)` (a list of
    lines), to `path` (through a .tmp file, so a killed build leaves no short file)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", newline="") as out:
        out.writelines(header_lines)
        for i in range(copies):
            out.writelines(rewrite(i))
    os.rename(path + ".tmp", path)
