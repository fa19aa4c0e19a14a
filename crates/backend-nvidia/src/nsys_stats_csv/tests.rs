use super::*;
use prof_core::{Family, OpKind};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(format!("{}/../../tests/fixtures/nvidia/nsys/{name}", env!("CARGO_MANIFEST_DIR")))
}

fn table(name: &str) -> StatsTable {
    StatsTable::from_file(&fixture_path(name)).unwrap()
}

fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

fn error(text: &str, name: &str) -> String {
    match StatsTable::parse(text, Path::new(name)) {
        Ok(t) => panic!("parsed {} rows from bad input", t.rows.len()),
        Err(e) => e.to_string(),
    }
}

// Row counts and totals below come from awk on each fixture, e.g.
// `awk -F, 'NR>1 && NF>0 {s+=$2; c+=$3; n++} END {print n, s, c}'` (the Name column is last, so
// quoted commas do not move columns 2 and 3), and from python's csv module for kernexecsum.

#[test]
fn cuda_gpu_kern_sum_new_style() {
    let t = table("gpuperf_sm103_cuda_gpu_kern_sum.csv");
    assert_eq!(t.report, StatsReport::GpuKernels);
    assert_eq!((t.rows.len(), t.total_ns(), t.instances()), (27, 3_292_644_414, 1_631));
    assert!(!t.totals_derived);
    let top = &t.rows[0];
    assert!(top.name.starts_with("kernel_cutlass_kernel_profile_targetrunlocalsKernel_object_at__tensorptrf16_gmem"));
    assert_eq!(
        (top.line, top.instances, top.total_ns, top.min_ns, top.max_ns),
        (2, 106, 2_762_929_184, 26_056_535, 26_074_872)
    );
    assert_eq!(
        (top.time_pct, top.avg_ns, top.med_ns, top.stddev_ns),
        (Some(83.9), 26_065_369.7, Some(26_064_917.5), Some(3998.0))
    );
    // python csv: 15 names carry commas; the last row (line 28, the file ends with an empty line) is one of them.
    let last = t.rows.last().unwrap();
    assert_eq!(last.line, 28);
    assert!(last.name.starts_with("void at::native::vectorized_elementwise_kernel<(int)4, at::native::AUnaryFunctor<"));
    assert!(last.name.ends_with("std::array<char *, (unsigned long)2>>(int, T2, T3)"));
    assert_eq!((last.instances, last.total_ns), (7, 59_488));
    assert_eq!(t.rows.iter().filter(|r| r.name.contains(',')).count(), 15);

    let summary = t.to_kernel_summary(&Families::builtin()).unwrap();
    assert_eq!((summary.ops, summary.device_ns, summary.kernels.len()), (1_631, 3_292_644_414, 27));
    assert_eq!(summary.kernels[0].total_ns, 2_762_929_184);
    assert!(summary.kernels.iter().all(|k| k.kind == OpKind::Kernel));
    assert!((summary.kernels[0].share_pct - 83.9).abs() < 0.05, "nsys printed 83.9 %");
    assert_eq!(summary.families.iter().map(|f| f.total_ns).sum::<u64>(), 3_292_644_414);
    assert!(summary.devices.is_empty() && summary.span_ns == 0);
}

#[test]
fn kernexecsum_old_style_derives_totals() {
    let t = table("cudalm_rtx2080ti_nsys2022.4.2_kernexecsum.csv");
    assert_eq!(t.report, StatsReport::KernelLaunchExec);
    assert!(t.totals_derived);
    // python: sum(round(Count * KAvg)) = 1049724630 over 29 rows; sum(Count) = 129702, which
    // is also the cudaLaunchKernel count of the same run's cudaapisum.
    assert_eq!((t.rows.len(), t.total_ns(), t.instances()), (29, 1_049_724_630, 129_702));
    let first = &t.rows[0];
    assert_eq!(first.name, "cudalm::kernels::<unnamed>::batch_bf16_gemv_vec4_row_kernel(const cudalm::kernels::<unnamed>::U16 *, const cudalm::kernels::<unnamed>::U16 *, __nv_bfloat16 *, int, int)");
    assert_eq!((first.instances, first.avg_ns, first.min_ns, first.max_ns), (18, 2_339_915.1, 1_753_827, 2_641_412));
    assert_eq!(first.total_ns, 42_118_472, "round(18 * 2339915.1)");
    let rows = t.kernel_rows(&Families::builtin()).unwrap();
    assert_eq!(rows.len(), 29);
    let top = &rows[0];
    assert_eq!(top.name, "cudalm::<unnamed>::int4gemv_rowtile4_bf16_kernel(const uint4 *, const __half *, const uint4 *, __nv_bfloat16 *, int, int)");
    assert_eq!((top.calls, top.total_ns, top.min_ns, top.max_ns), (51_336, 405_662_206, 3_904, 24_352));
}

#[test]
fn cudaapisum_is_host_time() {
    let t = table("cudalm_rtx2080ti_nsys2022.4.2_cudaapisum.csv");
    assert_eq!(t.report, StatsReport::ApiCalls);
    assert_eq!((t.rows.len(), t.total_ns(), t.instances()), (9, 1_845_853_401, 166_914));
    assert_eq!(
        (t.rows[0].name.as_str(), t.rows[0].total_ns, t.rows[0].instances),
        ("cudaLaunchKernel", 626_020_607, 129_702)
    );
    assert_eq!(t.rows.last().unwrap().name, "cuModuleGetLoadingMode");
    assert!(t.kernel_rows(&Families::builtin()).is_none() && t.to_kernel_summary(&Families::builtin()).is_none());
}

#[test]
fn gpumemtimesum_rows_become_copies_and_sets() {
    let t = table("cudalm_rtx2080ti_nsys2022.4.2_gpumemtimesum.csv");
    assert_eq!(t.report, StatsReport::GpuMemoryTime);
    assert_eq!((t.rows.len(), t.total_ns(), t.instances()), (4, 168_615_735, 30_068));
    let summary = t.to_kernel_summary(&Families::builtin()).unwrap();
    let kinds: Vec<(&str, OpKind, u64)> =
        summary.kernels.iter().map(|k| (k.name.as_str(), k.kind, k.total_ns)).collect();
    assert_eq!(
        kinds,
        [
            ("CUDA memcpy HtoD", OpKind::Memcpy, 96_212_180),
            ("CUDA memcpy DtoD", OpKind::Memcpy, 45_776_877),
            ("CUDA memset", OpKind::Memset, 18_598_151),
            ("CUDA memcpy DtoH", OpKind::Memcpy, 8_028_527),
        ]
    );
    assert_eq!(summary.kernels[2].family, Family::Memset);
}

#[test]
fn nvtx_sum_keeps_styles_and_names() {
    let t = table("tienshen_rtx3060ti_nvtx_sum_fp16.csv");
    assert_eq!(t.report, StatsReport::NvtxRanges);
    assert_eq!((t.rows.len(), t.total_ns(), t.instances()), (64, 321_331_525, 3_545));
    assert_eq!(t.rows.iter().filter(|r| r.style.as_deref() == Some("PushPop")).count(), 52);
    assert_eq!(t.rows.iter().filter(|r| r.style.as_deref() == Some("StartEnd")).count(), 12);
    assert_eq!(t.rows[2].name, "myelin-exec:myelinGraphExecute ", "the trailing space is nsys'");
    assert!(t.kernel_rows(&Families::builtin()).is_none());
}

#[test]
fn recognizes_only_stats_headers() {
    assert!(is_stats_csv(&fixture_path("gpuperf_sm103_cuda_gpu_kern_sum.csv")));
    assert!(is_stats_csv(&fixture_path("cudalm_rtx2080ti_nsys2022.4.2_kernexecsum.csv")));
    assert!(!is_stats_csv(&fixture_path("tienshen_rtx3060ti_nvtx_sum_int8_table.txt")));
    assert!(!is_stats_csv(&fixture_path("sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite")));
    assert!(!is_stats_csv(Path::new("/nonexistent/kern.csv")));
}

#[test]
fn bad_input_names_file_line_and_column() {
    assert_eq!(error("", "empty.csv"), "empty.csv:1: is empty, expected an nsys stats CSV header");
    assert_eq!(error("\n\n", "blank.csv"), "blank.csv:1: is empty, expected an nsys stats CSV header");

    let kern = fixture_text("gpuperf_sm103_cuda_gpu_kern_sum.csv");
    let no_name = kern.replacen(",StdDev (ns),Name\n", ",StdDev (ns)\n", 1);
    let err = error(&no_name, "kern.csv");
    assert!(
        err.starts_with("kern.csv:1: missing column `Name` of an nsys cuda_gpu_kern_sum (gpukernsum) report"),
        "{err}"
    );

    let api = fixture_text("cudalm_rtx2080ti_nsys2022.4.2_cudaapisum.csv");
    let err = error(&api.replace(',', ";"), "api.csv");
    assert!(err.starts_with("api.csv:1: the header `Time (%);Total Time (ns);Num Calls;"), "{err}");
    assert!(err.contains("is not comma-separated (it splits on ';')"), "{err}");

    let err = error(&api.replacen("Total Time (ns)", "Total Time (us)", 1), "us.csv");
    assert!(err.starts_with("us.csv:1: column `Total Time` is in us, not ns"), "{err}");

    let err = error(&api.replacen("4826.6", "n/a", 1), "na.csv");
    assert_eq!(err, "na.csv:2: column `Avg (ns)`: `n/a` is not a number");

    let err = error(&api.replacen(",cudaLaunchKernel", "", 1), "short.csv");
    assert!(err.starts_with("short.csv:2: expected 9 fields as in the header, found 8"), "{err}");

    let exec = fixture_text("cudalm_rtx2080ti_nsys2022.4.2_kernexecsum.csv");
    // Cut 20 bytes into the quoted kernel name of the fifth row (line 6): the file ends there,
    // so that row is left out and the table says so; the four rows before it are read.
    let inside = exec.match_indices(",\"").nth(4).unwrap().0 + 20;
    let cut = StatsTable::parse(exec.get(..inside).unwrap(), Path::new("cut.csv")).unwrap();
    assert_eq!(cut.rows.len(), 4);
    assert_eq!(
        cut.partial.as_deref(),
        Some("cut.csv:6: the last row has no line break (the file was cut short); it was left out")
    );
    // A quote left open before the end of the file is still an error naming its line.
    let err = error(&format!("{}\n", exec.get(..inside).unwrap()), "open.csv");
    assert_eq!(err, "open.csv:6: a quoted field opened here is never closed");
    // Totals that sum past 2^64 ns name the row that passed it.
    let big = kern.replacen(",2762929184,", ",18446744073709551000,", 1);
    assert_eq!(
        error(&big, "big.csv"),
        "big.csv:3: the times summed up to this row pass 2^64: the file's numbers cannot be real"
    );

    let table = fixture_path("tienshen_rtx3060ti_nvtx_sum_int8_table.txt");
    let err = StatsTable::from_file(&table).unwrap_err().to_string();
    assert!(err.contains("_table.txt:2: `** NVTX Range Summary (nvtx_sum):` is the title nsys stats prints"), "{err}");

    let err = error("PID,TID,Value\n1,2,3\n", "other.csv");
    assert!(err.starts_with("other.csv:1: no `Instances`, `Num Calls` or `Count` column"), "{err}");
}
