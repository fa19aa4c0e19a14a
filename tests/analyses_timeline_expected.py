#!/usr/bin/env python3
"""Independent expected numbers for tests/analyses_timeline.rs.

Reads the raw fixtures with the standard library only (json, csv, gzip), maps them the way
each importer documents (crates/backend-*/src), and recomputes the stream roles, idle gaps,
overlaps and launch statistics from first principles (sorted interval unions), without any
code of prof. Run from the repository root:

    python3 tests/analyses_timeline_expected.py

and compare its output with the constants in the test.
"""
import csv
import gzip
import json
from collections import defaultdict

F = "tests/fixtures/"
COLLECTIVE = ["nccl", "rccl", "hccl", "hcom_", "allreduce", "all_reduce", "allgather", "all_gather",
              "reducescatter", "reduce_scatter", "alltoall", "all_to_all"]
MEMORY = ["memcpy", "rocclr_copybuffer", "memset", "rocclr_fillbuffer"]
MAX_DELAY = 60_000_000_000
KERNEL_WAIT_MAX = 10_000


def ns(us):
    """Decimal microseconds (number or string) to integer ns, digit by digit, rounded half up
    on the fourth decimal (torch_npu writes durations like 12.77012757357446)."""
    text = str(us).strip()
    whole, _, frac = text.partition(".")
    frac = frac + "0000"
    return int(whole or "0") * 1000 + int(frac[:3]) + (frac[3] >= "5")


def activity(kind, name):
    """Built-in family table reduced to the activity classes (collective rules come first)."""
    if kind in ("memcpy", "memset"):
        return "memory"
    if kind == "communication":
        return "communication"
    if kind == "other":
        return "other"
    low = name.lower()
    if any(p in low for p in COLLECTIVE):
        return "communication"
    if any(p in low for p in MEMORY):
        return "memory"
    return "compute"


def union(spans):
    out = []
    for s, e in sorted(x for x in spans if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def total(u):
    return sum(e - s for s, e in u)


def inter(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        t += max(0, e - s)
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return t


def rank(values, p):
    v = sorted(values)
    return v[max(1, -(-len(v) * p // 100)) - 1]


# ---- loaders: op = dict(kind, name, dev, stream, start, dur, corr, core); host = dict(name, cat, start, dur, corr)
def torch_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    # decimals stay text: a float cannot hold 16 digits of µs plus 3 of ns
    doc = json.load(opener(path, "rt"), parse_float=str)
    ops, host = [], []
    kinds = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    cats = {"cuda_runtime": "runtime", "cuda_driver": "driver", "cpu_op": "framework", "user_annotation": "annotation"}
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        a = e.get("args", {})
        if e.get("cat") in kinds:
            kind = kinds[e["cat"]]
            if kind == "kernel" and "nccl" in e["name"].lower():
                kind = "communication"
            ops.append(dict(kind=kind, name=e["name"], dev=a.get("device", e["pid"]), stream=a.get("stream", e["tid"]),
                            start=ns(e["ts"]), dur=ns(e["dur"]), corr=a.get("correlation"), core=None))
        elif e.get("cat") in cats:
            host.append(dict(name=e["name"], cat=cats[e["cat"]], start=ns(e["ts"]), dur=ns(e["dur"]),
                             corr=a.get("correlation")))
    return ops, host


def rocprofv3(prefix):
    ops, host = [], []
    for r in csv.DictReader(open(prefix + "kernel_trace.csv")):
        name = r["Kernel_Name"]
        kind = "communication" if ("rccl" in name.lower() or "nccl" in name.lower()) else "kernel"
        s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
        ops.append(dict(kind=kind, name=name, dev=r["Agent_Id"], stream=int(r.get("Stream_Id") or r["Queue_Id"]),
                        start=s, dur=e - s, corr=int(r["Correlation_Id"]), core=None))
    try:
        for r in csv.DictReader(open(prefix + "memory_copy_trace.csv")):
            s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
            dev = r["Destination_Agent_Id"] if "HOST_TO_DEVICE" in r["Direction"] else r["Source_Agent_Id"]
            ops.append(dict(kind="memcpy", name=r["Direction"], dev=dev, stream=int(r["Stream_Id"]), start=s,
                            dur=e - s, corr=int(r["Correlation_Id"]), core=None))
        for r in csv.DictReader(open(prefix + "hip_api_trace.csv")):
            s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
            cat = "runtime" if r["Domain"].startswith("HIP_") else "other"
            host.append(dict(name=r["Function"], cat=cat, start=s, dur=e - s, corr=int(r["Correlation_Id"])))
    except FileNotFoundError:
        pass
    return ops, host


def ascend_kind(task, name):
    if task == "HCCL" or task.startswith("REDUCE_ASYNC") or task.startswith("NOTIFY_"):
        return "communication"
    if task == "MEMCPY_ASYNC":
        return "memcpy"
    if task in ("AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU", "DSA_SQE"):
        return "kernel"
    if name.startswith("hcom_"):
        return "communication"
    if name.startswith("MEMCPY_ASYNC"):
        return "memcpy"
    if any(task.startswith(p) for p in ["EVENT_", "PROFILING_", "TASK_TIMEOUT", "STREAM_", "MODEL_"]):
        return "other"
    return "kernel"


CORE = {"AI_CORE": "cube", "AI_VECTOR_CORE": "vector", "MIX_AIC": "mix", "MIX_AIV": "mix"}


def ascend_trace(path, flows=False):
    """msprof / torch_npu Chrome trace (crates/backend-ascend/src/trace_json.rs). With `flows`, the
    `HostToDevice` flow events link each hardware task to the API span that launched it
    (trace_flows.rs): each end binds to the innermost slice of its pid/tid enclosing its ts."""
    doc = json.load(open(path), parse_float=str)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    pname = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    ops, host = [], []
    slices = defaultdict(list)  # (pid, tid) -> [(start, end, record)]
    for e in events:
        if e.get("ph") != "X" or pname.get(e["pid"]) in ("Overlap Analysis", "HCCL"):
            continue
        if pname.get(e["pid"]) == "Ascend Hardware" and (e.get("args") or {}).get("Task Type") is None:
            continue
        # The runtime's bookkeeping tasks (EVENT_*, PROFILING_*, TASK_TIMEOUT_SET, …) are no
        # device work: the loader counts them as unread (task_type.rs).
        task = (e.get("args") or {}).get("Task Type") or ""
        if pname.get(e["pid"]) == "Ascend Hardware" and ascend_kind(task, e["name"]) == "other":
            continue
        record = _ascend_event(e, pname, ops, host)
        slices[(e["pid"], e.get("tid", 0))].append((record["start"], record["start"] + record["dur"], record))
    if flows:
        ends = defaultdict(dict)  # id -> {"s": record, "f": record}
        for e in events:
            if e.get("ph") in ("s", "f") and e.get("cat") == "HostToDevice":
                ts = ns(e["ts"])
                inside = [x for x in slices[(e["pid"], e.get("tid", 0))] if x[0] <= ts <= x[1]]
                # innermost = latest start, then shortest
                best = max(inside, key=lambda x: (x[0], -x[1]), default=None)
                ends[str(e["id"])][e["ph"]] = best[2] if best else None
        pairs = []
        for pair in ends.values():
            s_, f_ = pair.get("s"), pair.get("f")
            if s_ is not None and f_ is not None and "cat" in s_ and "kind" in f_:
                pairs.append((s_["index"], f_["index"]))
        fresh = max([o["corr"] for o in ops if o["corr"] is not None] +
                    [h["corr"] for h in host if h["corr"] is not None] + [-1]) + 1
        for hi, oi in sorted(pairs):
            if host[hi]["corr"] is None:
                host[hi]["corr"] = fresh
                fresh += 1
            ops[oi]["corr"] = host[hi]["corr"]
    return ops, host


def _ascend_event(e, pname, ops, host):
    """Appends the X event `e` as a device op (Ascend Hardware with a Task Type) or a host span; returns it."""
    a = e.get("args") or {}
    task = a.get("Task Type")
    if pname.get(e["pid"]) == "Ascend Hardware":
        ops.append(dict(kind=ascend_kind(task, e["name"]), name=e["name"], dev=0,
                        stream=a.get("Stream Id", a.get("Physic Stream Id", e.get("tid"))),
                        start=ns(e["ts"]), dur=ns(e["dur"]), corr=a.get("connection_id"), core=CORE.get(task),
                        index=len(ops)))
        return ops[-1]
    runtime = any(e["name"].startswith(p) for p in ["AscendCL@", "Node@", "GE@", "Runtime@", "HCCL@"])
    cat = "runtime" if runtime else {"cpu_op": "framework", "user_annotation": "annotation"}.get(e.get("cat"), "other")
    corr = a.get("connection_id") if pname.get(e["pid"]) == "CANN" else None
    host.append(dict(name=e["name"], cat=cat, start=ns(e["ts"]), dur=ns(e["dur"]), corr=corr, index=len(host)))
    return host[-1]


def kernel_details(path):
    ops = []
    for r in csv.DictReader(open(path)):
        task = r["Accelerator Core"]
        if ascend_kind(task, r["Name"]) == "other":
            continue
        stream = 2**64 - 1 if r["Stream ID"] == "N/A" else int(r["Stream ID"])
        ops.append(dict(kind=ascend_kind(task, r["Name"]), name=r["Name"], dev=0, stream=stream,
                        start=ns(r["Start Time(us)"]), dur=ns(r["Duration(us)"]), corr=None, core=CORE.get(task),
                        op_type=r["Type"]))
    return ops, []


def act(o):
    a = activity(o["kind"], o["name"])
    # the family table falls back to the framework op type when the name says nothing
    if a == "compute" and o.get("op_type"):
        a = activity(o["kind"], o["op_type"])
    return a


# ---- analyses
def streams(ops):
    per = defaultdict(list)
    for o in ops:
        per[o["stream"]].append(o)
    dev_busy = total(union([(o["start"], o["start"] + o["dur"]) for o in ops]))
    rows = []
    for s, l in per.items():
        busy = total(union([(o["start"], o["start"] + o["dur"]) for o in l]))
        t = defaultdict(int)
        for o in l:
            t[act(o)] += o["dur"]
        tt = sum(t.values())
        role = ("communication" if tt and t["communication"] * 2 >= tt else
                "memory" if tt and t["memory"] * 2 >= tt else "side")
        rows.append([s, len(l), busy, role])
    rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
    rows[0][3] = "main"
    rows = rows[:1] + sorted(rows[1:], key=lambda r: (-r[2], r[0]))
    return dev_busy, rows


def gaps(ops, host, n_host=5):
    ops = [o for o in ops if o["dur"] > 0]
    u = union([(o["start"], o["start"] + o["dur"]) for o in ops])
    launch = {h["corr"]: h for h in host if h["cat"] in ("runtime", "driver") and h["corr"] is not None}
    buckets = [0] * 5
    causes = defaultdict(lambda: [0, 0])
    listed = []
    for (_, a), (b, _) in zip(u, u[1:]):
        length = b - a
        after = min((o for o in ops if o["start"] >= b), key=lambda o: o["start"])
        before = [o for o in ops if o["start"] + o["dur"] == a][0]
        h = launch.get(after["corr"])
        ls = h["start"] if h and h["start"] <= b and b - h["start"] <= MAX_DELAY else None
        cause = ("unknown" if ls is None else "host_wait" if ls >= a else
                 "kernel_wait" if length <= KERNEL_WAIT_MAX else "dependency")
        buckets[sum(length >= x for x in [10_000, 100_000, 1_000_000, 10_000_000])] += 1
        causes[cause][0] += 1
        causes[cause][1] += length
        listed.append((length, a, before["name"], after["name"], cause, None if ls is None else ls - a))
    listed.sort(key=lambda g: (-g[0], g[1]))
    top = listed[0] if listed else None
    inside = []
    if top:
        a, b = top[1], top[1] + top[0]
        for h in host:
            if h["cat"] in ("framework", "annotation"):
                ov = min(h["start"] + h["dur"], b) - max(h["start"], a)
                if ov > 0:
                    inside.append((ov, h["dur"], h["name"]))
        inside.sort(key=lambda x: (-x[0], x[1]))
        whole = [x for x in inside if x[0] == top[0]][:1]
        inside = (whole + [x for x in inside if x[0] < top[0]])[:n_host]
    return dict(wall=u[-1][1] - u[0][0], count=len(listed), total=sum(g[0] for g in listed), buckets=buckets,
                causes=dict(causes), top=top, top_offset=top[1] - u[0][0] if top else None,
                top_host=[(x[2], x[0]) for x in inside])


def main_stream_gaps(ops, host):
    _, rows = streams(ops)
    return rows[0][0], gaps([o for o in ops if o["stream"] == rows[0][0]], host)


def launch_stats(ops, host):
    by_corr = {h["corr"]: h for h in host if h["corr"] is not None}
    d, l, k, shorter, short, short_ns, broken = [], [], 0, 0, 0, 0, 0
    for o in ops:
        if o["kind"] not in ("kernel", "communication"):
            continue
        h = by_corr.get(o["corr"])
        if h is None or h["cat"] not in ("runtime", "driver"):
            continue
        delay = o["start"] - h["start"]
        if delay < 0 or delay > MAX_DELAY:
            broken += 1
            continue
        d.append(delay)
        l.append(h["dur"])
        k += o["dur"]
        shorter += o["dur"] < h["dur"]
        if o["dur"] < 10_000:
            short += 1
            short_ns += o["dur"]
    pct = (lambda v: [rank(v, 50), rank(v, 90), rank(v, 99), max(v)]) if d else (lambda v: None)
    return dict(kernels=len(d), broken=broken, delay=pct(d), launch=pct(l), launch_total=sum(l), kernel_total=k,
                shorter=shorter, short=short, short_ns=short_ns)


def overlap(ops, cover, covered):
    a = union([(o["start"], o["start"] + o["dur"]) for o in ops if cover(o)])
    b = union([(o["start"], o["start"] + o["dur"]) for o in ops if covered(o)])
    return total(a), total(b), inter(a, b)


def comm_overlap(ops):
    return overlap(ops, lambda o: act(o) == "compute", lambda o: act(o) == "communication")


def cube_overlap(ops):
    return overlap(ops, lambda o: o["core"] == "vector", lambda o: o["core"] == "cube")


if __name__ == "__main__":
    h200, h200_host = torch_trace(F + "nvidia/h200-probe/torch-trace.json")
    print("h200 streams", {(o["dev"], o["stream"]) for o in h200}, "nccl", sum(o["kind"] == "communication" for o in h200))
    print("h200 gaps", gaps(h200, h200_host))
    print("h200 launch", launch_stats(h200, h200_host))
    resnet, resnet_host = torch_trace(F + "nvidia/torch/hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
    print("resnet streams", {(o["dev"], o["stream"]) for o in resnet})
    g = gaps(resnet, resnet_host)
    print("resnet gaps", {k: v for k, v in g.items() if k != "top_host"})
    print("resnet launch", launch_stats(resnet, resnet_host))
    amd05, _ = rocprofv3(F + "amd/rocprofv3/sdk0.5_")
    print("amd0.5 streams", streams(amd05))
    print("amd0.5 gaps", gaps(amd05, []), "main", main_stream_gaps(amd05, []))
    amd10, amd10_host = rocprofv3(F + "amd/rocprofv3/sdk1.0_")
    print("amd1.0 streams", streams(amd10))
    print("amd1.0 launch", launch_stats(amd10, amd10_host))
    mi, mi_host = ascend_trace(F + "ascend/mindinsight_msprof_2dev/PROF_000001_20230818142704322_COJGGGCANRMICFBC/"
                               "device_0/timeline/msprof_0_2_1.json")
    print("mindinsight streams", streams(mi))
    print("mindinsight comm overlap", comm_overlap(mi))
    g = gaps(mi, mi_host)
    print("mindinsight gaps", {k: v for k, v in g.items() if k != "top_host"}, "main", main_stream_gaps(mi, mi_host)[0],
          {k: v for k, v in main_stream_gaps(mi, mi_host)[1].items() if k in ("count", "total")})
    kd, _ = kernel_details(F + "ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv")
    print("kernel_details cube/vector", cube_overlap(kd), "comm", comm_overlap(kd))
    vllm, vllm_host = ascend_trace(F + "ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/"
                                   "PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output/"
                                   "msprof_20260823165334.json", flows=True)
    print("vllm launch", launch_stats(vllm, vllm_host))
    print("vllm gaps causes", gaps(vllm, vllm_host)["causes"])
    tv, tv_host = ascend_trace(F + "ascend/msprof-analyze_advisor_trace_view/trace_view.json", flows=True)
    print("trace_view gaps", gaps(tv, tv_host))
    print("trace_view launch", launch_stats(tv, tv_host))
