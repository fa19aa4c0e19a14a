#!/usr/bin/env python3
"""Checks the API records of a prof CUPTI trace (.pcupti) against its kernels, reading the
file directly (independently of prof's loader): how many kernels have a launch record with
their correlation id, the launch-to-start delay and the launch call's duration (medians), the
most common launch functions, and any dropped-record count.

Usage: check_launch_records.py TRACE.pcupti
Record layout: crates/cupti-format/src/{layout,records}.rs (32-byte header, then a tag byte
and a fixed body per record; STRING bodies are id, length, bytes).
"""
import collections
import statistics
import struct
import sys

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"PROFCUPT", "not a prof CUPTI trace"
pos, strings, kernels, apis, dropped = 32, {}, [], {}, 0
BODY = {2: 72, 3: 48, 4: 48, 5: 40, 6: 8, 7: 8, 8: 16}
while pos < len(data):
    tag = data[pos]
    pos += 1
    if tag == 1:
        sid, n = struct.unpack_from("<II", data, pos)
        strings[sid] = data[pos + 8:pos + 8 + n].decode("utf-8", "replace")
        pos += 8 + n
        continue
    body = BODY[tag]
    if tag == 2:
        start, end, _dev, _ctx, _stream, corr = struct.unpack_from("<QQIIII", data, pos)
        kernels.append((start, corr))
    elif tag == 5:
        start, end, _pid, tid, corr, cbid = struct.unpack_from("<QQIIII", data, pos)
        name = struct.unpack_from("<I", data, pos + 36)[0]
        apis[corr] = (start, end, name, tid)
    elif tag == 6:
        dropped += struct.unpack_from("<Q", data, pos)[0]
    pos += body
linked = [(k, apis[c]) for k, c in kernels if c in apis]
delay = [k - a[0] for k, a in linked]
duration = [a[1] - a[0] for _, a in linked]
names = collections.Counter(strings.get(a[2], "?") for a in apis.values())
print(f"{len(kernels)} kernels, {len(apis)} API records, {len(linked)} kernels ({100 * len(linked) / max(1, len(kernels)):.1f} %) "
      f"have their launch; launch-to-start median {statistics.median(delay) / 1e3 if delay else float('nan'):.1f} us, "
      f"launch call median {statistics.median(duration) / 1e3 if duration else float('nan'):.2f} us; "
      f"threads {len(set(a[3] for a in apis.values()))}; dropped {dropped}")
print("launch functions: " + ", ".join(f"{n} {c}" for n, c in names.most_common(4)))
