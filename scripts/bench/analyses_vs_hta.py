#!/usr/bin/env python3
"""`prof analyze`'s timeline analyses against HolisticTraceAnalysis on the same PyTorch trace.

Two parts, one run:

1. Agreement, on the unrepeated real fixtures (HTA's own V100 ResNet test trace, HTA's A100
   AlexNet trace with two streams and cuda_sync events, the project's H200 trace): prof's
   `analyses.temporal` (per device wall / compute / communication / memory / other / idle)
   against HTA's `get_temporal_breakdown()` (per rank idle / compute / non-compute / kernel
   time), and prof's `analyses.gaps` (idle gaps of the device and of its main stream, by cause)
   against HTA's `get_idle_time_breakdown()` (idle per stream by host wait / kernel wait /
   other). HTA runs twice: "like-for-like" (include_last_profiler_step=True,
   HTA_DISABLE_NS_ROUNDING=1: every GPU event, timestamps as recorded) — these must agree with
   prof to float precision — and with its defaults, whose differences are measured and explained.
2. Speed: a trace of each SIZE_MB built by repeating the V100 fixture (bigtrace.py), timed
   with `prof analyze --phase all --json` (kernel summary + every analysis over the whole run,
   as HTA reads it) and HTA's load +
   temporal breakdown + idle-time breakdown (like-for-like options, HTA's faster path), with
   peak RSS of each, MB/s and the ratio, and the same agreement check on the big trace.

Usage: analyses_vs_hta.py PROF_BINARY [SIZE_MB ...] [--skip-hta] [--hta-timeout S] [--hta-max-rss-gb G]
       [--source FIXTURE] [--keep]
  --skip-hta: time prof alone on the big traces (the agreement part always runs HTA);
  --hta-timeout / --hta-max-rss-gb: stop HTA past 600 s / 20 GiB (the row says so);
  --keep: leave the big traces under /tmp/prof-bench for the next run (deleted by default).
Exit status 1 when a like-for-like number disagrees beyond the tolerance.
"""
import gzip
import json
import os
import resource
import subprocess
import sys
import threading
import time
from decimal import Decimal

import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bigtrace import build  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = {
    "v100-resnet": "tests/fixtures/nvidia/torch/hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "a100-alexnet": "tests/fixtures/nvidia/torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
    "h200-probe": "tests/fixtures/nvidia/h200-probe/torch-trace.json",
}
# prof's kernel-wait bound is 10 us (gaps.rs KERNEL_WAIT_MAX_NS); HTA's default is 30 (in the
# trace's unit, us, although its docstring says ns). The check runs HTA with both.
PROF_KERNEL_WAIT_US = 10
HTA_DEFAULT_KERNEL_WAIT_US = 30

HTA_CHILD = r"""
import json, os, sys, time, resource, logging
logging.disable(logging.WARNING)
trace_dir, include_last, delays = sys.argv[1], sys.argv[2] == "1", [int(d) for d in sys.argv[3].split(",")]
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=trace_dir, include_last_profiler_step=include_last)
t1 = time.perf_counter()
tb = a.get_temporal_breakdown(visualize=False)
t2 = time.perf_counter()
ranks = a.t.get_ranks()
idle = {}
idle_s = []
for delay in delays:
    s = time.perf_counter()
    df, _ = a.get_idle_time_breakdown(ranks=ranks, visualize=False, consecutive_kernel_delay=delay)
    idle_s.append(time.perf_counter() - s)
    idle[delay] = [
        {"rank": int(r.rank), "stream": int(r.stream), "category": str(r.idle_category), "us": float(r.idle_time)}
        for r in df.itertuples()
    ]
temporal = [
    {"rank": int(r["rank"]), "idle_us": float(r["idle_time(us)"]), "compute_us": float(r["compute_time(us)"]),
     "non_compute_us": float(r["non_compute_time(us)"]), "kernel_time_us": float(r["kernel_time(us)"])}
    for _, r in tb.iterrows()
]
print(json.dumps({"load_s": t1 - t0, "temporal_s": t2 - t1, "idle_s": idle_s, "temporal": temporal,
                  "idle": idle, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


class Limits:
    """Wall-clock and memory limits for one child process."""

    def __init__(self, timeout_s=None, max_rss_bytes=None):
        self.timeout_s = timeout_s
        self.max_rss_bytes = max_rss_bytes


LAST_CPU_S = [0.0]  # user + sys CPU seconds of the last measured child


def measured(argv, env=None, limits=Limits(), failure_is_fatal=True):
    """Run argv; return (wall s, stdout, peak RSS MB, None) or (wall, None, peak, why it stopped or failed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    watched = psutil.Process(proc.pid)
    peak = 0
    stopped = None
    out_chunks = []
    reader = threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()))
    err_chunks = []
    err_reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()))
    reader.start()
    err_reader.start()
    while proc.poll() is None:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.Error:
            pass
        elapsed = time.monotonic() - start
        if limits.timeout_s and elapsed > limits.timeout_s:
            stopped = f"stopped after {elapsed:.0f} s (limit {limits.timeout_s} s)"
        elif limits.max_rss_bytes and peak > limits.max_rss_bytes:
            stopped = f"stopped at {peak / 2**30:.1f} GiB RSS (limit {limits.max_rss_bytes / 2**30:.0f} GiB)"
        if stopped:
            proc.kill()
            proc.wait()
            break
        time.sleep(0.02)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU_S[0] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    reader.join()
    err_reader.join()
    if stopped:
        return wall, None, peak / 1e6, stopped
    if proc.returncode != 0:
        tail = "".join(err_chunks).strip().splitlines()[-3:]
        if failure_is_fatal:
            raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {''.join(err_chunks)[-2000:]}")
        return wall, None, peak / 1e6, f"failed (exit {proc.returncode}): {' | '.join(tail)}"
    return wall, "".join(out_chunks), peak / 1e6, None


def run_prof(prof, path):
    # The whole run, as HTA sees it: prof's default window (`--phase steady`) leaves out the
    # load phase (the weight upload of the A100 AlexNet trace: 16 copies, 75 ms).
    wall, out, rss, _ = measured([prof, "analyze", "--phase", "all", "--json", path])
    return wall, rss, json.loads(out)


def run_hta(trace_dir, like_for_like, delays, limits=Limits()):
    env = dict(os.environ)
    if like_for_like:
        env["HTA_DISABLE_NS_ROUNDING"] = "1"
    else:
        env.pop("HTA_DISABLE_NS_ROUNDING", None)
    argv = [sys.executable, "-c", HTA_CHILD, trace_dir, "1" if like_for_like else "0", ",".join(map(str, delays))]
    wall, out, rss, stopped = measured(argv, env, limits, failure_is_fatal=False)
    if stopped:
        return wall, rss, None, stopped
    doc = json.loads(out.strip().splitlines()[-1])
    doc["idle"] = {int(k): v for k, v in doc["idle"].items()}
    return wall, max(rss, doc["maxrss_kb"] / 1024), doc, None


HTA_DIRS = set()  # the one-file directories made for HTA, removed at the end


def hta_dir_for(path):
    """HTA reads every trace in a directory: give it one holding only this file (a symlink)."""
    name = os.path.basename(path)
    directory = f"/tmp/prof-bench/hta-one-{name.split('.')[0]}"
    HTA_DIRS.add(directory)
    os.makedirs(directory, exist_ok=True)
    for old in os.listdir(directory):
        os.remove(os.path.join(directory, old))
    os.symlink(os.path.abspath(path), os.path.join(directory, name))
    return directory


# ---- agreement -------------------------------------------------------------------------------


def tolerance_us(ops):
    """HTA reads Kineto's absolute µs timestamps (~1.7e15) as float64, which holds them to 0.25 µs,
    so each interval boundary may move by up to 0.125 µs; prof reads their digits as exact ns. The
    errors mostly cancel in sums: allow 1 µs + 0.1 µs per thousand ops."""
    return 1.0 + 1e-4 * ops


def prof_numbers(doc):
    """prof's per-device temporal split and gap totals, µs."""
    analyses = doc.get("analyses", {})
    devices = {}
    for d in analyses.get("temporal", []):
        devices[d["device"]] = {
            "wall": d["wall_ns"] / 1e3,
            "compute": d["compute_ns"] / 1e3,
            "non_compute": (d["communication_ns"] + d["memory_ns"] + d["other_ns"]) / 1e3,
            "idle": d["idle_ns"] / 1e3,
            "ops": d["ops"],
        }
    gaps = analyses.get("gaps")
    if isinstance(gaps, dict):  # a section may wrap its list
        gaps = gaps.get("devices", gaps.get("gaps"))
    for g in gaps or []:
        entry = devices.setdefault(g["device"], {})
        entry["gap_total"] = g["device_gaps"]["total_ns"] / 1e3
        entry["main_stream"] = g["main_stream"]
        entry["main_gap_total"] = g["main_stream_gaps"]["total_ns"] / 1e3
        causes = {c["cause"]: c["total_ns"] / 1e3 for c in g["main_stream_gaps"]["causes"]}
        entry["main_causes"] = {
            "host_wait": causes.get("host_wait", 0.0),
            "kernel_wait": causes.get("kernel_wait", 0.0),
            "other": causes.get("dependency", 0.0) + causes.get("unknown", 0.0),
        }
    return devices, gaps is not None


def hta_numbers(doc, delay):
    """HTA's temporal breakdown and idle time per stream (by category), µs, by rank."""
    ranks = {}
    for r in doc["temporal"]:
        ranks[r["rank"]] = {
            "wall": r["kernel_time_us"],
            "compute": r["compute_us"],
            "non_compute": r["non_compute_us"],
            "idle": r["idle_us"],
            "streams": {},
        }
    for row in doc["idle"][delay]:
        streams = ranks.setdefault(row["rank"], {"streams": {}})["streams"]
        streams.setdefault(row["stream"], {"host_wait": 0.0, "kernel_wait": 0.0, "other": 0.0})[row["category"]] += row[
            "us"
        ]
    return ranks


# ---- exact recomputation from the raw file (explains the differences) -------------------------

PROF_OP_CATS = ("kernel", "gpu_memcpy", "gpu_memset")  # what prof's torch importer makes ops of
MAX_PLAUSIBLE_DELAY_NS = 60_000_000_000  # prof's launch.rs bound for a believable launch link


def ns(value):
    """A Kineto µs value (a decimal in the JSON) as exact integer ns."""
    return int(Decimal(str(value)) * 1000)


def raw_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)["traceEvents"]


def hta_stream(event):
    """The stream number HTA gives an event (-1: not a GPU event), as normalize_gpu_stream_numbers does."""
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    try:
        return int(args.get("stream", -1))
    except (TypeError, ValueError):
        return -1


def union_split(spans):
    """(wall, busy) ns of a list of (start, end)."""
    spans = sorted(spans)
    if not spans:
        return 0, 0
    busy, cur_start, cur_end = 0, spans[0][0], spans[0][1]
    for start, end in spans[1:]:
        if start > cur_end:
            busy += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    busy += cur_end - cur_start
    return max(e for _, e in spans) - spans[0][0], busy


def exact_explanation(path, main_stream):
    """Recompute, at exact ns from the raw file, the temporal split over prof's op set and over
    HTA's event set (HTA's compute classifier), and the main stream's gap causes by both rules."""
    from hta.utils.utils import is_compute_kernel

    events = [e for e in raw_events(path) if e.get("ph") == "X" and "ts" in e and "dur" in e]
    prof_ops = [e for e in events if e.get("cat") in PROF_OP_CATS]
    hta_extra = [e for e in events if e.get("cat") not in PROF_OP_CATS and hta_stream(e) != -1]
    out = {"extra": len(hta_extra), "extra_cats": sorted({e.get("cat") for e in hta_extra})}
    for label, ops in (("prof_set", prof_ops), ("hta_set", prof_ops + hta_extra)):
        spans = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ops]
        compute = [(a, b) for (a, b), e in zip(spans, ops) if is_compute_kernel(e["name"])]
        wall, busy = union_split(spans)
        _, compute_busy = union_split(compute)
        out[label] = {"wall": wall / 1e3, "idle": (wall - busy) / 1e3, "compute": compute_busy / 1e3,
                      "non_compute": (busy - compute_busy) / 1e3}
    launches = {}
    for e in events:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            launches.setdefault(args["correlation"], ns(e["ts"]))
    # prof's rule: gaps of the union of the stream's ops (zero-length ops ignored), cause from the
    # launch of the op after the gap.
    stream_ops = sorted(
        (e for e in prof_ops if hta_stream(e) == main_stream and ns(e["dur"]) > 0), key=lambda e: ns(e["ts"])
    )
    prof_rule = {"host_wait": 0, "kernel_wait": 0, "other": 0}
    prev_end = None
    for e in stream_ops:
        start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        if prev_end is not None and start > prev_end:
            gap = start - prev_end
            launch = launches.get((e.get("args") or {}).get("correlation"))
            if launch is None or launch > start or start - launch > MAX_PLAUSIBLE_DELAY_NS:
                prof_cause = "other"
            elif launch >= prev_end:
                prof_cause = "host_wait"
            else:
                prof_cause = "kernel_wait" if gap <= PROF_KERNEL_WAIT_US * 1000 else "other"
            prof_rule[prof_cause] += gap
        prev_end = end if prev_end is None else max(prev_end, end)
    out["prof_rule"] = {k: v / 1e3 for k, v in prof_rule.items()}
    # HTA's rule (_analyze_idle_time_for_stream): every op of the stream sorted by ts, interval =
    # ts - previous row's end (negative where ops overlap, and summed all the same), host wait when
    # the launch started strictly after that end. Done at exact ns and in float64 µs as HTA does.
    rows = sorted((e for e in prof_ops if hta_stream(e) == main_stream), key=lambda e: ns(e["ts"]))
    float_min = min(float(e["ts"]) for e in events)
    exact_rule = {"host_wait": 0, "kernel_wait": 0, "other": 0}
    float_rule = {"host_wait": 0.0, "kernel_wait": 0.0, "other": 0.0}
    negative, flips = [0, 0], [0, 0]
    for before, e in zip(rows, rows[1:]):
        launch_exact = launches.get((e.get("args") or {}).get("correlation"))
        prev_end = ns(before["ts"]) + ns(before["dur"])
        interval = ns(e["ts"]) - prev_end
        exact = "host_wait" if launch_exact is not None and launch_exact > prev_end else None
        exact = exact or ("kernel_wait" if interval < PROF_KERNEL_WAIT_US * 1000 else "other")
        exact_rule[exact] += interval
        prev_end_f = (float(before["ts"]) - float_min) + float(before["dur"])
        interval_f = (float(e["ts"]) - float_min) - prev_end_f
        launch_f = None if launch_exact is None else float(Decimal(launch_exact) / 1000) - float_min
        approx = "host_wait" if launch_f is not None and launch_f > prev_end_f else None
        approx = approx or ("kernel_wait" if interval_f < PROF_KERNEL_WAIT_US else "other")
        float_rule[approx] += interval_f
        if interval < 0:
            negative[0] += 1
            negative[1] += interval
        if approx != exact:
            flips[0] += 1
            flips[1] += interval
    out["hta_rule"] = {k: v / 1e3 for k, v in exact_rule.items()}
    out["hta_rule_float"] = float_rule
    out["negative"] = (negative[0], negative[1] / 1e3)
    out["flips"] = (flips[0], flips[1] / 1e3)
    out["zero_length"] = sum(1 for e in rows if ns(e["dur"]) == 0)
    return out


class Checker:
    """Collects comparison lines; a like-for-like difference beyond tolerance is a failure."""

    def __init__(self):
        self.failures = 0
        self.explained = set()

    def compare(self, label, left_us, right_us, tol_us, strict, why="", names=("prof", "HTA")):
        """Print one comparison; `why` is printed under the first line of a group that differs."""
        diff = left_us - right_us
        ok = abs(diff) <= tol_us
        if strict and not ok:
            self.failures += 1
        verdict = "agree" if ok else ("DISAGREE" if strict else "differ")
        print(
            f"    {label:<40} {names[0]} {left_us:>14.3f} us  {names[1]} {right_us:>14.3f} us  "
            f"diff {diff:>+12.3f} us  {verdict}"
        )
        if not ok and why and why not in self.explained:
            self.explained.add(why)
            print(f"      why: {why}")


def explain_streams(prof_dev, hta_rank):
    streams = sorted(hta_rank["streams"])
    return ", ".join(f"stream {s}: {sum(hta_rank['streams'][s].values()):.3f} us" for s in streams)


def check(name, path, prof, checker, limits=Limits()):
    """Compare prof and HTA (like-for-like and defaults) on one unrepeated trace, and explain
    every difference with an exact recomputation from the raw file."""
    print(f"\n== agreement on {name} ({path})")
    _, _, doc = run_prof(prof, path)
    devices, has_gaps = prof_numbers(doc)
    trace_dir = hta_dir_for(path)
    _, _, exact, stopped = run_hta(trace_dir, True, [PROF_KERNEL_WAIT_US, HTA_DEFAULT_KERNEL_WAIT_US], limits)
    if stopped:
        print(f"  HTA like-for-like {stopped}; no comparison")
        checker.failures += 1
        return
    _, _, default, default_stopped = run_hta(trace_dir, False, [HTA_DEFAULT_KERNEL_WAIT_US], limits)
    exact_ranks = hta_numbers(exact, PROF_KERNEL_WAIT_US)
    default_ranks = hta_numbers(default, HTA_DEFAULT_KERNEL_WAIT_US) if default else {}
    if len(devices) != 1 or len(exact_ranks) != 1:
        print(f"  prof devices {sorted(devices)} vs HTA ranks {sorted(exact_ranks)}: compared in order")
    for (device, p), (rank, h) in zip(sorted(devices.items()), sorted(exact_ranks.items())):
        tol = tolerance_us(p["ops"])
        main_stream = p.get("main_stream", min(h["streams"]) if h["streams"] else -1)
        x = exact_explanation(path, main_stream)
        print(f"  prof device {device} ({p['ops']} ops) vs HTA rank {rank}; tolerance {tol:.2f} us")
        print("  prof against an exact-ns recomputation over the same ops (kernel/gpu_memcpy/gpu_memset events):")
        checker.compare("wall", p["wall"], x["prof_set"]["wall"], 0.0005, True, names=("prof", "exact"))
        checker.compare("idle", p["idle"], x["prof_set"]["idle"], 0.0005, True, names=("prof", "exact"))
        checker.compare(
            "compute (exact: HTA's name classifier)", p["compute"], x["prof_set"]["compute"], 0.0005, False,
            "prof classifies kernels with its family table (collective / memcpy / memset families), HTA by name "
            "regex (^nccl.*Kernel, .*Memcpy, ^Memset, .*Sync are non-compute)",
            names=("prof", "exact"),
        )
        extra = f"{x['extra']} more events HTA counts as GPU time ({', '.join(x['extra_cats'])})" if x["extra"] else ""
        why_set = (
            f"HTA's temporal breakdown takes every event with a stream number, so {extra}: it adds them to the busy "
            "time and the wall, and its name classifier calls a 'Stream Wait Event' compute (no 'Sync' in the "
            "name). prof makes ops of kernels, memcpys and memsets only: a cuda_sync event is the host or a stream "
            "waiting, not device work. Recomputed over HTA's set at exact ns: "
            + ", ".join(f"{k} {v:.3f} us" for k, v in x["hta_set"].items())
        )
        print("  like-for-like HTA (include_last_profiler_step=True, HTA_DISABLE_NS_ROUNDING=1):")
        strict = x["extra"] == 0
        checker.compare("wall (first to last GPU event)", p["wall"], h["wall"], tol, strict, why_set)
        checker.compare("compute", p["compute"], h["compute"], tol, strict, why_set)
        checker.compare("non-compute (comm+memory+other)", p["non_compute"], h["non_compute"], tol, strict, why_set)
        checker.compare("idle", p["idle"], h["idle"], tol, strict, why_set)
        if not strict:
            print("    HTA against the exact recomputation over HTA's own event set (must agree):")
            for key in ("wall", "compute", "non_compute", "idle"):
                checker.compare(f"  {key}", x["hta_set"][key], h[key], tol, True, names=("exact", "HTA"))
        if not has_gaps:
            print("    gaps: this prof build has no `analyses.gaps` section yet; idle-gap check skipped")
        else:
            checker.compare("device gap total vs temporal idle", p["gap_total"], p["idle"], 0.0005, True,
                            names=("gaps", "temporal"))
            hs = h["streams"].get(main_stream)
            print(f"    HTA idle per stream: {explain_streams(p, h)}; prof's main stream: {main_stream}")
            if hs is None:
                print(f"    main stream {main_stream} not among HTA's idle streams")
                checker.failures += 1
            else:
                (neg_n, neg_us), (flip_n, flip_us) = x["negative"], x["flips"]
                why_total = (
                    f"HTA sums ts - previous op's end over the stream's rows even where ops overlap: {neg_n} negative "
                    f"intervals ({neg_us:.3f} us) on this stream lower its total; prof measures gaps of the union"
                )
                checker.compare(f"main stream {main_stream} gap total", p["main_gap_total"], sum(hs.values()), tol,
                                neg_n == 0, why_total)
                print(f"    causes on stream {main_stream} (HTA with consecutive_kernel_delay={PROF_KERNEL_WAIT_US}):")
                for cause in ("host_wait", "kernel_wait", "other"):
                    checker.compare(f"  {cause}: prof vs prof's rule, exact", p["main_causes"][cause],
                                    x["prof_rule"][cause], 0.0005, True, names=("prof", "exact"))
                for cause in ("host_wait", "kernel_wait", "other"):
                    checker.compare(f"  {cause}: HTA vs HTA's rule, float64", hs[cause],
                                    x["hta_rule_float"][cause], 0.01, True, names=("HTA", "float"))
                why_cause = (
                    "the rules: HTA host wait = launch strictly after the previous op's end, else kernel wait if the "
                    f"interval < {PROF_KERNEL_WAIT_US} us, else other; prof host wait = launch at or after the gap "
                    f"start, else kernel wait if <= {PROF_KERNEL_WAIT_US} us, else dependency, no usable launch link = "
                    "unknown (both in 'other' here). HTA's rule at exact ns gives "
                    + ", ".join(f"{k} {v:.3f}" for k, v in x["hta_rule"].items())
                    + f" us; the rest is HTA's float64 us arithmetic (0.25 us grain at 1.7e15 us): {flip_n} gaps "
                    f"({flip_us:.3f} us) whose launch lies within a float step of the previous op's end change "
                    f"category, and {neg_n} negative intervals ({neg_us:.3f} us) it sums into kernel wait"
                )
                for cause in ("host_wait", "kernel_wait", "other"):
                    checker.compare(f"  {cause}: prof vs HTA", p["main_causes"][cause], hs[cause], tol, False,
                                    why_cause)
                hd = hta_numbers(exact, HTA_DEFAULT_KERNEL_WAIT_US)[rank]["streams"][main_stream]
                print(
                    f"    with HTA's default kernel-wait bound ({HTA_DEFAULT_KERNEL_WAIT_US} us, in the trace's unit "
                    f"although its docstring says ns): host wait {hd['host_wait']:.3f}, kernel wait "
                    f"{hd['kernel_wait']:.3f}, other {hd['other']:.3f} us"
                )
        d = default_ranks.get(rank)
        if d is None:
            print(f"  HTA with its defaults: {default_stopped or 'no such rank'}")
            if default_stopped and "AssertionError" in default_stopped:
                print(
                    "    why: HTA's default rounding (ceil start, floor end to whole us) turns sub-us kernels into "
                    "negative-length events, its merged busy time then falls below its compute time and its own "
                    "`assert non_compute_time >= 0` fails; with HTA_DISABLE_NS_ROUNDING=1 (above) it runs"
                )
            continue
        print("  HTA with its defaults (last ProfilerStep dropped, events rounded inward to whole us):")
        if all(abs(h[k] - d[k]) < 1e-6 for k in ("wall", "compute", "non_compute", "idle")):
            why = (
                "HTA's defaults change nothing on this trace (no ProfilerStep to drop, whole-us timestamps): the "
                "difference is the one explained for the like-for-like run"
            )
        else:
            why = (
                "HTA by default keeps only GPU ops launched before the last ProfilerStep starts "
                "(include_last_profiler_step=False) and rounds every event inward to whole us (ceil start, floor "
                "end); prof keeps every op at ns resolution. Its like-for-like run above differs from this one by "
                f"wall {h['wall'] - d['wall']:+.3f}, idle {h['idle'] - d['idle']:+.3f} us"
            )
        for key in ("wall", "compute", "non_compute", "idle"):
            checker.compare(key, p[key], d[key], tol, False, why)


# ---- speed -----------------------------------------------------------------------------------


def bench(prof, source, size_mb, checker, limits, skip_hta):
    path = f"/tmp/prof-bench/analyses-{int(size_mb)}mb/rank-0.json"
    start = time.monotonic()
    copies = build(source, size_mb, path)
    size = os.path.getsize(path) / 1e6
    built = f"built ({copies} copies) in {time.monotonic() - start:.0f} s" if copies else "reused"
    print(f"\n== speed on {path} ({size:.0f} MB, {built})")
    load = os.getloadavg()[0]
    wall, rss, doc = run_prof(prof, path)
    cpu = LAST_CPU_S[0]
    sections = sorted(doc.get("analyses", {}))
    print(
        f"  prof analyze --phase all --json: {wall:.2f} s wall ({cpu:.2f} s CPU; load average {load:.1f} on {os.cpu_count()} "
        f"cores), {size / wall:.0f} MB/s, peak RSS {rss:.0f} MB; sections {sections}"
    )
    row = {"size": size, "prof_s": wall, "prof_cpu": cpu, "prof_rss": rss, "sections": sections}
    if skip_hta:
        return row
    hta_wall, hta_rss, hta, stopped = run_hta(hta_dir_for(path), True, [HTA_DEFAULT_KERNEL_WAIT_US], limits)
    if stopped:
        print(f"  HTA {stopped}")
        row["hta_stopped"] = stopped
        return row
    print(
        f"  HTA: load {hta['load_s']:.1f} s + temporal {hta['temporal_s']:.1f} s + idle {hta['idle_s'][0]:.1f} s"
        f" = {hta_wall:.1f} s wall (with interpreter start), {size / hta_wall:.1f} MB/s, peak RSS {hta_rss:.0f} MB"
    )
    print(f"  prof is {hta_wall / wall:.1f}x faster than HTA (same file, same run; HTA CPU {LAST_CPU_S[0]:.1f} s)")
    row.update(hta_s=hta_wall, hta=hta, hta_rss=hta_rss)
    source_events = [e for e in raw_events(source) if e.get("ph") == "X"]
    extra = sum(1 for e in source_events if e.get("cat") not in PROF_OP_CATS and hta_stream(e) != -1)
    if extra:
        print(f"  (the source has {extra} cuda_sync-like events HTA counts as GPU time: see the agreement part)")
    devices, has_gaps = prof_numbers(doc)
    ranks = hta_numbers(hta, HTA_DEFAULT_KERNEL_WAIT_US)
    for (device, p), (rank, h) in zip(sorted(devices.items()), sorted(ranks.items())):
        tol = tolerance_us(p["ops"])
        print(f"  agreement on the big trace, device {device} vs rank {rank} (tolerance {tol:.1f} us):")
        checker.compare("wall", p["wall"], h["wall"], tol, not extra)
        checker.compare("compute", p["compute"], h["compute"], tol, not extra)
        checker.compare("idle", p["idle"], h["idle"], tol, not extra)
        if has_gaps and p.get("main_stream") in h["streams"]:
            overlapping = exact_explanation(source, p["main_stream"])["negative"][0]
            checker.compare("main stream gap total", p["main_gap_total"], sum(h["streams"][p["main_stream"]].values()),
                            tol, overlapping == 0, "ops overlap on the stream: HTA sums negative intervals")
    return row


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    prof = args.pop(0)

    def option(name, default):
        if name in args:
            i = args.index(name)
            value = args[i + 1]
            del args[i : i + 2]
            return value
        return default

    timeout = float(option("--hta-timeout", 600))
    max_rss = float(option("--hta-max-rss-gb", 20)) * 2**30
    source = os.path.join(ROOT, option("--source", FIXTURES["v100-resnet"]))
    skip_hta = "--skip-hta" in args
    keep = "--keep" in args
    sizes = [float(a) for a in args if not a.startswith("--")]
    limits = Limits(timeout, max_rss)
    checker = Checker()
    for name, rel in FIXTURES.items():
        check(name, os.path.join(ROOT, rel), prof, checker, limits)
    rows = [bench(prof, source, size, checker, limits, skip_hta) for size in sizes]
    if rows:
        print("\n| trace | size | prof analyze --phase all --json (all sections) | HTA load + temporal + idle | ratio | peak RSS prof / HTA |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            name = os.path.basename(source).split(".")[0]
            prof_cell = f"{r['prof_s']:.2f} s wall, {r['prof_cpu']:.2f} s CPU ({r['size'] / r['prof_s']:.0f} MB/s)"
            if "hta" in r:
                h = r["hta"]
                hta_cell = (
                    f"{r['hta_s']:.1f} s ({h['load_s']:.1f} + {h['temporal_s']:.1f} + {h['idle_s'][0]:.1f}; "
                    f"{r['size'] / r['hta_s']:.1f} MB/s)"
                )
                ratio = f"{r['hta_s'] / r['prof_s']:.0f}x"
                rss = f"{r['prof_rss']:.0f} MB / {r['hta_rss'] / 1024:.1f} GB"
            else:
                hta_cell = r.get("hta_stopped", "not run")
                ratio = "–"
                rss = f"{r['prof_rss']:.0f} MB / –"
            print(f"| {name}, repeated | {r['size']:.0f} MB | {prof_cell} | {hta_cell} | {ratio} | {rss} |")
    if not keep:
        for size in sizes:
            path = f"/tmp/prof-bench/analyses-{int(size)}mb/rank-0.json"
            if os.path.exists(path):
                os.remove(path)
            if os.path.isdir(os.path.dirname(path)) and not os.listdir(os.path.dirname(path)):
                os.rmdir(os.path.dirname(path))
    for directory in HTA_DIRS:
        for old in os.listdir(directory):
            os.remove(os.path.join(directory, old))
        os.rmdir(directory)
    print(f"\nlike-for-like disagreements: {checker.failures}")
    sys.exit(1 if checker.failures else 0)


main()
