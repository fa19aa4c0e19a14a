#!/usr/bin/env bash
# Checks prof's CUPTI tracer (libprof_cupti.so) on a CUDA machine with PyTorch, no Rust needed:
#   1. runs the work.py workload (tests/fixtures/nvidia/work.py) unprofiled for STEPS steps,
#   2. runs the same STEPS steps with CUDA_INJECTION64_PATH=libprof_cupti.so once per PROF_CUPTI_API mode,
#   3. runs the unprofiled baseline again (the two baselines show the noise) and prints each slowdown,
#   4. runs work.py for 2 s with a 100 ms window starting 1 s in (PROF_CUPTI_START_AFTER_MS/DURATION_MS),
#   and checks that each traced run left one non-trivial, well-formed trace with kernels in it, API records
#   as its mode says (none: no API records; launch: no cudaGetDevice), and no tracer warnings.
# Each timed run times STEPS steps REPEATS times in one process and reports the median.
# Usage: scripts/device/cupti-check.sh [STEPS]
#   TRACER=/abs/libprof_cupti.so (default: target/release, then target/debug)   OUT=/dir (default /tmp/prof-cupti-check)
#   MODES="none launch all" (default: launch)   REPEATS=3
# Exit status 0 only when every check passed.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
steps=${1:-300}
work=$root/tests/fixtures/nvidia/work.py
out=${OUT:-/tmp/prof-cupti-check}
tracer=${TRACER:-}
if [ -z "$tracer" ]; then
  for candidate in "$root/target/release/libprof_cupti.so" "$root/target/debug/libprof_cupti.so"; do
    [ -f "$candidate" ] && tracer=$candidate && break
  done
fi
modes=${MODES:-launch}
repeats=${REPEATS:-3}
failed=0
fail() { echo "FAIL: $*"; failed=1; }

echo "== prof CUPTI tracer check: tracer=${tracer:-<none>} steps=$steps repeats=$repeats modes=$modes out=$out"
[ -n "$tracer" ] && [ -f "$tracer" ] || { echo "FAIL: libprof_cupti.so not found (set TRACER=)"; exit 1; }
tracer=$(readlink -f "$tracer")
rm -rf "$out" && mkdir -p "$out/window"
for mode in $modes; do mkdir -p "$out/$mode"; done

# A fixed number of steps of work.py's workload: exec work.py with 0 seconds for its own
# timed loop, then time STEPS of its step() REPEATS times after 10 warm-up steps.
cat >"$out/steps.py" <<'PY'
import sys, time, statistics
path, steps, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.argv = [path, "0"]
ns = {"__name__": "work"}
exec(compile(open(path).read(), path, "exec"), ns)
torch, step, x, A = ns["torch"], ns["step"], ns["x"], ns["A"]
for _ in range(10):
    step(x); A @ A
torch.cuda.synchronize()
times = []
for _ in range(repeats):
    t = time.perf_counter()
    for _ in range(steps):
        step(x); A @ A
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t)
print(f"timed {steps} steps {statistics.median(times):.4f} s (median of {' '.join(f'{v:.4f}' for v in times)})")
PY

# Walks a trace by the format in crates/cupti-format/src (the .pcupti layout); prints a summary.
cat >"$out/walk.py" <<'PY'
import struct, sys, collections
data = open(sys.argv[1], "rb").read()
min_kernels, mode = int(sys.argv[2]), sys.argv[3]
assert data[:8] == b"PROFCUPT", "bad magic"
version, pid, rank, local, t0 = struct.unpack_from("<IIiiQ", data, 8)
sizes = {2: 72, 3: 48, 4: 48, 5: 40, 6: 8, 7: 8, 8: 16}
names, counts, kernels, pos, end, window_end, spans = {}, collections.Counter(), collections.Counter(), 32, None, None, []
apis = collections.Counter()
while pos < len(data):
    tag = data[pos]
    if tag == 1:
        sid, n = struct.unpack_from("<II", data, pos + 1)
        names[sid] = data[pos + 9:pos + 9 + n].decode("utf-8", "replace")
        pos += 9 + n
        continue
    if tag not in sizes:
        sys.exit(f"unknown tag {tag} at byte {pos}")
    body = data[pos + 1:pos + 1 + sizes[tag]]
    if len(body) < sizes[tag]:
        print(f"cut record at byte {pos}"); break
    counts[tag] += 1
    if tag == 2:
        start, stop, dev, ctx, stream, corr, name = struct.unpack_from("<QQIIIII", body)
        assert stop >= start, "kernel ends before it starts"
        kernels[names[name]] += 1
        spans.append(start)
    elif tag == 5:
        apis[names[struct.unpack_from("<I", body, 36)[0]]] += 1
    elif tag == 7:
        window_end = struct.unpack_from("<Q", body)[0]
    elif tag == 8:
        end = struct.unpack_from("<QQ", body)
    pos += 1 + sizes[tag]
print(f"  pid {pid} rank {rank} bytes {len(data)} kernels {counts[2]} memcpy {counts[3]} memset {counts[4]} "
      f"api {counts[5]} strings {len(names)} end {end} window_end {window_end}")
if spans:
    print(f"  kernel starts span {(max(spans) - min(spans)) / 1e6:.1f} ms, first at +{(min(spans) - t0) / 1e6:.1f} ms")
for name, n in kernels.most_common(6):
    print(f"  {n:6d}  {name[:110]}")
for name, n in apis.most_common(8):
    print(f"  {n:6d}  API {name}")
ok = counts[2] >= min_kernels and (end is not None or window_end is not None)
if (counts[5] == 0) != (mode == "none"):
    ok = False; print(f"  PROF_CUPTI_API={mode} but {counts[5]} API records")
if mode == "launch" and any(n.startswith("cudaGetDevice") for n in apis):
    ok = False; print("  PROF_CUPTI_API=launch recorded cudaGetDevice")
if len(sys.argv) > 4 and spans and max(spans) - min(spans) > float(sys.argv[4]) * 1e6:
    ok = False; print(f"  kernels span more than the {sys.argv[4]} ms window")
if end is not None and end[0] != sum(counts[t] for t in (2, 3, 4, 5)):
    ok = False; print("  END count disagrees with the records")
sys.exit(0 if ok else 1)
PY

run() { # label, log, then the command; prints the command's "timed" line
  echo "-- $1: ${*:3}"
  local t0 t1; t0=$(date +%s.%N)
  "${@:3}" >"$2" 2>&1; local rc=$?
  t1=$(date +%s.%N)
  echo "   exit $rc, wall $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; $(grep -h '^timed' "$2")"; grep -h '^prof-cupti' "$2" | sed 's/^/   /'
  return $rc
}
seconds() { grep -h '^timed' "$1" | awk '{print $4}'; }

python3 -c 'import torch; assert torch.cuda.is_available(); print("torch", torch.__version__, torch.version.cuda, torch.cuda.get_device_name())' || exit 1

run "unprofiled" "$out/base1.log" python3 "$out/steps.py" "$work" "$steps" "$repeats" || fail "unprofiled run"
for mode in $modes; do
  run "traced, PROF_CUPTI_API=$mode" "$out/$mode.log" env CUDA_INJECTION64_PATH="$tracer" PROF_CUPTI_OUT="$out/$mode/" \
    PROF_CUPTI_API="$mode" python3 "$out/steps.py" "$work" "$steps" "$repeats" || fail "traced run ($mode)"
done
run "unprofiled again" "$out/base2.log" python3 "$out/steps.py" "$work" "$steps" "$repeats" || fail "second unprofiled run"
base1=$(seconds "$out/base1.log"); base2=$(seconds "$out/base2.log")
if [ -n "$base1" ] && [ -n "$base2" ]; then
  base=$(awk "BEGIN{printf \"%.4f\", ($base1 + $base2) / 2}")
  echo "== untraced: $base1 s before, $base2 s after (mean $base s) for $steps steps"
  for mode in $modes; do
    traced=$(seconds "$out/$mode.log")
    [ -n "$traced" ] && echo "== PROF_CUPTI_API=$mode: $traced s, slowdown $(awk "BEGIN{printf \"%.3f\", $traced / $base}")x" \
      "(vs before $(awk "BEGIN{printf \"%.3f\", $traced / $base1}")x, vs after $(awk "BEGIN{printf \"%.3f\", $traced / $base2}")x)"
  done
fi

run "windowed" "$out/window.log" env CUDA_INJECTION64_PATH="$tracer" PROF_CUPTI_OUT="$out/window/" \
  PROF_CUPTI_START_AFTER_MS=1000 PROF_CUPTI_DURATION_MS=100 python3 "$work" 2 || fail "windowed run"

for dir in $modes window; do
  files=("$out/$dir"/prof-cupti-*.pcupti)
  if [ ! -f "${files[0]}" ]; then fail "$dir: no trace written"; continue; fi
  [ "${#files[@]}" -eq 1 ] || fail "$dir: ${#files[@]} traces for one process"
  size=$(stat -c %s "${files[0]}")
  echo "== $dir trace ${files[0]} ($size bytes)"
  [ "$size" -gt 1000 ] || fail "$dir: trace is only $size bytes"
  if [ $dir = window ]; then check=(1 launch 100); else check=("$steps" "$dir"); fi
  python3 "$out/walk.py" "${files[0]}" "${check[@]}" || fail "$dir: trace does not hold the expected records"
done
grep -h 'prof-cupti: warning' "$out"/*.log && fail "the tracer printed warnings"

[ $failed -eq 0 ] && echo "== PASS" || echo "== FAILED"
exit $failed
