"""Shared helpers of the benchmark scripts: run a command under /usr/bin/time for its wall
time and peak RSS, so each tool in a paired run is measured on its own (getrusage of the
children would mix the two)."""
import os
import subprocess
import sys
import time

last_cpu_s = 0.0


def run_measured(argv, env=None):
    """Runs `argv` PROF_BENCH_RUNS times (default 2) back to back; returns (wall seconds, peak
    RSS in MB, stdout) of the fastest run. Exits on failure. The CPU time (user + system) of
    that run is kept in `last_cpu_s`, every run's wall time in `last_walls`: on a shared
    machine, wall time includes waiting for a core, CPU time does not.

    Why twice: this machine is a VM whose host backs guest memory on first touch, about 40 us a
    page (3 GiB took 33 s the first time, 0.45 s right after). A tool that needs gigabytes
    pays that on its first run, one that needs little barely: the first run of prof's full
    analysis and of pandas came out 1.5-2.5x slower than the same run a minute later."""
    global last_cpu_s, last_walls
    runs = []
    for _ in range(max(1, int(os.environ.get("PROF_BENCH_RUNS", "2")))):
        runs.append(_run_once(argv, env))
    last_walls = [r[0] for r in runs]
    wall, rss, out, last_cpu_s = min(runs, key=lambda r: r[0])
    return wall, rss, out


last_walls = []


def _run_once(argv, env):
    stats = f"/tmp/prof-bench-time.{os.getpid()}"
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%M %U %S"] + argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - start
    with open(stats) as f:
        rss_kb, user, system = f.read().strip().splitlines()[-1].split()
    os.unlink(stats)
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, int(rss_kb) / 1024, proc.stdout, float(user) + float(system)


def repeat_file(path, header_lines, copies, rewrite):
    """Writes `header_lines` once, then `copies` blocks, block i being `rewrite(i)` (a list of
    lines), to `path` (through a .tmp file, so a killed build leaves no short file)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", newline="") as out:
        out.writelines(header_lines)
        for i in range(copies):
            out.writelines(rewrite(i))
    os.rename(path + ".tmp", path)


def settle(path):
    """Writes dirty pages out and reads `path` once, so the first timed reader pays neither
    the writeback of a file just built nor its first read from disk."""
    os.sync()
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass
