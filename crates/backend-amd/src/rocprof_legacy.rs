//! Loads the legacy rocprof (rocprofiler v1) dispatch table `results.csv` into a [`Timeline`].
//!
//! The recorded file (`hpctrain-laplacian_results.csv`, rocprof from ROCm 5.x/6.0 with
//! `--stats`) has the columns `Index, KernelName, gpu-id, queue-id, queue-index, pid, tid, grd,
//! wgr, lds, scr, arch_vgpr, accum_vgpr, sgpr, wave_size, sig, obj, DispatchNs, BeginNs, EndNs,
//! CompleteNs, DurationNs`. Each row is one kernel dispatch: device `gpu-id` (rocprof's agent
//! number, kept as it is), stream `queue-id`, start `BeginNs`, duration `EndNs - BeginNs` (equal
//! to `DurationNs` in every recorded row). `lds` goes to `shared_memory_bytes` and `arch_vgpr`
//! to `registers_per_thread` when present. `grd` and `wgr` are single numbers (work-items),
//! with no per-dimension split, so grid and block are left unset. Kernel names are kept as
//! rocprof prints them, `[clone .kd]` suffix included. No correlation id: this table does not
//! link dispatches to API calls.
//!
//! rocprof-compute (Omniperf) keeps the same table as `timestamps.csv` in its workload
//! directories, with columns renamed: over rocprof v1 (ROCm 6.0) `Dispatch_ID, Kernel_Name,
//! GPU_ID, queue-id, …, Start_Timestamp, End_Timestamp, …`; over rocprofv3 (ROCm 6.1+)
//! `Dispatch_ID, GPU_ID, Queue_ID, …, Arch_VGPR, …, Kernel_Name, Start_Timestamp,
//! End_Timestamp, Correlation_ID`. Each column is looked up under every name it has had.

use crate::rocprof_csv::CsvReader;
use prof_core::{DeviceOp, OpDetails, OpKind, Result, Timeline};
use std::io::BufRead;
use std::path::Path;

/// The columns the loader needs, each under the names rocprof v1 and rocprof-compute give it.
pub const COLUMNS: [&[&str]; 5] = [
    &["KernelName", "Kernel_Name"],
    &["gpu-id", "GPU_ID"],
    &["queue-id", "Queue_ID"],
    &["BeginNs", "Start_Timestamp"],
    &["EndNs", "End_Timestamp"],
];

const EXPECTED: &str = "a rocprof v1 results.csv header (Index, KernelName, gpu-id, queue-id, …, DispatchNs, \
     BeginNs, EndNs, CompleteNs, DurationNs)";

/// True when the first line of the file at `path` is a rocprof v1 dispatch table header.
pub fn is_results_csv(path: &Path) -> bool {
    path.is_file()
        && path.extension().is_some_and(|e| e == "csv")
        && CsvReader::open(path).is_ok_and(|csv| COLUMNS.iter().all(|names| names.iter().any(|n| csv.has_all(&[n]))))
}

/// Loads the dispatch table at `path`.
pub fn load(path: &Path) -> Result<Timeline> {
    let mut timeline = Timeline::new(path.display().to_string());
    read(CsvReader::open(path)?, &mut timeline)?;
    Ok(timeline)
}

/// Appends the dispatches of `csv` to `timeline`; returns how many.
pub fn read<R: BufRead>(mut csv: CsvReader<R>, timeline: &mut Timeline) -> Result<usize> {
    let mut index = [0usize; 5];
    for (slot, names) in index.iter_mut().zip(COLUMNS) {
        *slot = match names.iter().find_map(|n| csv.find(n)) {
            Some(at) => at,
            None => csv.require(names[0], EXPECTED)?,
        };
    }
    let [name, gpu, queue, begin, end] = index;
    let lds = csv.find("lds").or_else(|| csv.find("LDS_Per_Workgroup"));
    let vgpr = csv.find("arch_vgpr").or_else(|| csv.find("Arch_VGPR"));
    let mut added = 0;
    while let Some(r) = csv.next_record()?.filter(|_| !timeline.is_full()) {
        let (start_ns, end_ns) = (csv.u64(&r, begin)?, csv.u64(&r, end)?);
        if end_ns < start_ns {
            return Err(csv.error(&r, format!("EndNs {end_ns} is before BeginNs {start_ns}")));
        }
        let device = u32::try_from(csv.u64(&r, gpu)?).map_err(|_| csv.error(&r, "`gpu-id` does not fit 32 bits"))?;
        let name_id = timeline.intern(csv.text(&r, name));
        let op = DeviceOp::new(OpKind::Kernel, name_id, device, csv.u64(&r, queue)?, start_ns, end_ns - start_ns);
        let lds_bytes = csv.opt_u64(&r, lds)?;
        let vgprs = csv.opt_u64(&r, vgpr)?.and_then(|v| u32::try_from(v).ok());
        if lds_bytes.is_some() || vgprs.is_some() {
            let details =
                OpDetails { shared_memory_bytes: lds_bytes, registers_per_thread: vgprs, ..OpDetails::default() };
            timeline.push_op_with(op, details);
        } else {
            timeline.push_op(op);
        }
        added += 1;
    }
    csv.mark_cut(timeline);
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture_path;
    use prof_core::{summarize_kernels, Families};

    fn parse(text: &str) -> Result<Timeline> {
        let mut t = Timeline::new("t");
        read(CsvReader::from_reader(text.as_bytes(), Path::new("results.csv"))?, &mut t)?;
        Ok(t)
    }

    #[test]
    fn laplacian_dispatch_table() {
        let path = fixture_path("rocprof-v1/hpctrain-laplacian_results.csv");
        assert!(is_results_csv(&path));
        let t = load(&path).unwrap();
        let s = summarize_kernels(&t, &Families::builtin());
        // python csv module: 1004 rows, sum(EndNs-BeginNs) = 2,610,787,312; top kernel
        // laplacian_kernel<double> 1001 calls, 2,608,618,986 ns; all on gpu-id 8, queue-id 0.
        assert_eq!(t.ops.len(), 1004);
        assert_eq!(s.device_ns, 2_610_787_312);
        let top = &s.kernels[0];
        assert!(top.name.starts_with("void laplacian_kernel<double>(") && top.name.ends_with("[clone .kd]"));
        assert_eq!((top.calls, top.total_ns), (1001, 2_608_618_986));
        assert!(t.ops.iter().all(|op| op.device() == 8 && op.stream() == 0));
        // Row Index 1: lds 0, arch_vgpr 24.
        let d = t.details_of(&t.ops[1]).unwrap();
        assert_eq!((d.shared_memory_bytes, d.registers_per_thread, d.grid), (Some(0), Some(24), None));
    }

    #[test]
    fn bad_rows_are_errors_with_their_line() {
        let header = "KernelName,gpu-id,queue-id,BeginNs,EndNs\n";
        let e = parse(&format!("{header}\"k\",8,0,20,10\n")).unwrap_err().to_string();
        assert!(e.contains("results.csv:2") && e.contains("before BeginNs"), "{e}");
        let e = parse(&format!("{header}\"k\",8,0,abc,10\n")).unwrap_err().to_string();
        assert!(e.contains("results.csv:2") && e.contains("`BeginNs` is `abc`"), "{e}");
        let e = parse("KernelName,gpu-id,queue-id,BeginNs\n").unwrap_err().to_string();
        assert!(e.contains("results.csv:1") && e.contains("`EndNs`") && e.contains("rocprof v1"), "{e}");
        assert!(!is_results_csv(&fixture_path("rocprofv3/sdk1.0_kernel_trace.csv")));
    }

    /// rocprof-compute's `timestamps.csv`, real files of both header styles (tests/fixtures/amd/
    /// SOURCES.md). python csv: MI200 (over rocprof v1) 3 dispatches, 20640 + 15520 + 16480 =
    /// 52640 ns on GPU_ID 2; MI300X (over rocprofv3) 16119 + 13560 + 13480 = 43159 ns on GPU_ID
    /// 60633; the MI300A file's timestamps were rounded to `1.62068E+14` and are refused.
    #[test]
    fn rocprof_compute_timestamps_of_both_header_styles() {
        for (workload, device, durations) in [
            ("device_filter_MI200", 2, [20_640, 15_520, 16_480]),
            ("device_filter_MI300X_A1", 60_633, [16_119, 13_560, 13_480]),
        ] {
            let path = fixture_path(&format!("rocprof-compute/{workload}/timestamps.csv"));
            assert!(is_results_csv(&path), "{workload}");
            let t = load(&path).unwrap();
            assert_eq!(t.ops.iter().map(|o| o.dur_ns()).collect::<Vec<_>>(), durations, "{workload}");
            assert!(t.ops.iter().all(|o| o.device() == device && t.name(o.name()).starts_with("vecCopy(double*")));
        }
        let rounded = fixture_path("rocprof-compute/vcopy_MI300A_A1/timestamps.csv");
        let e = load(&rounded).unwrap_err().to_string();
        assert!(e.contains("timestamps.csv:2: `Start_Timestamp` is `1.62068E+14`") && e.contains("scientific"), "{e}");
    }
}
