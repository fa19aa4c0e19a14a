use super::*;
use crate::test_fixtures::fixture_path;

const JSON: &str = "rocprofv3-json/vcopy_MI300A_ps_file_results.REDUCED.json";
const CSV: &str = "rocprofv3-json/vcopy_MI300A_ps_file_kernel_trace.csv";

/// The JSON and the CSV of the same run (tests/fixtures/amd/SOURCES.md) give the same
/// dispatches: python's csv module on the CSV gives 8292, 5528 and 5488 ns (19,308 ns) for
/// `vecCopy(double*, double*, double*, int, int)`, correlation ids 1..3, queue 2.
#[test]
fn json_dispatches_equal_the_csv_of_the_same_run() {
    let path = fixture_path(JSON);
    assert!(is_rocprofv3_json(&path));
    assert!(!is_rocprofv3_json(&fixture_path(CSV)));
    let t = load(&path).unwrap();
    let durations: Vec<u64> = t.ops.iter().map(|o| o.dur_ns()).collect();
    assert_eq!(durations, [8292, 5528, 5488]);
    let mut csv = Timeline::new("csv");
    let reader = crate::rocprof_csv::CsvReader::open(&fixture_path(CSV)).unwrap();
    crate::rocprofv3_trace::load_kernel_trace(reader, None, 0, &mut csv).unwrap();
    let starts = |t: &Timeline| t.ops.iter().map(|o| o.start_ns).collect::<Vec<_>>();
    assert_eq!(starts(&t), starts(&csv));
    for op in &t.ops {
        assert_eq!(t.name(op.name()), "vecCopy(double*, double*, double*, int, int)");
        assert_eq!(
            (op.device(), op.stream(), op.kind()),
            (0, 0, OpKind::Kernel),
            "stream_id 0, as the CSV's Stream_Id"
        );
        let details = t.details_of(op).unwrap();
        assert_eq!((details.block, details.grid), (Some([256, 1, 1]), Some([4096, 1, 1])));
    }
    assert_eq!(t.ops.iter().map(|o| o.correlation.get().unwrap()).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(t.partial, None);
}

#[test]
fn bad_json_says_what_is_wrong() {
    let dir = std::env::temp_dir().join(format!("prof-rocprofv3-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let error = |path: &Path| load(path).unwrap_err().to_string();
    let real = std::fs::read_to_string(fixture_path(JSON)).unwrap();
    let cut = write("cut.json", &real[..real.len() / 2]);
    assert!(error(&cut).contains("the file ends inside its JSON"), "{}", error(&cut));
    let other = write("other.json", "{\"traceEvents\": []}");
    assert!(error(&other).contains("has no `rocprofiler-sdk-tool` key"), "{}", error(&other));
    let empty = write("empty.json", "{\"rocprofiler-sdk-tool\": [{\"agents\": [], \"buffer_records\": {}}]}");
    assert!(error(&empty).contains("hold no kernel dispatch"), "{}", error(&empty));
    let unknown = real.replace("\"kernel_id\":12,\"dispatch_id\":2,", "\"kernel_id\":99,\"dispatch_id\":2,");
    assert_ne!(unknown, real, "the fixture names kernel 12");
    let unknown = write("unknown.json", &unknown);
    assert!(error(&unknown).contains("kernel_id 99 is not in kernel_symbols"), "{}", error(&unknown));
    std::fs::remove_dir_all(&dir).unwrap();
}
