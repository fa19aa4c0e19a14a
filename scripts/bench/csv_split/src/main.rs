//! prof's CSV splitters against the `csv` crate (BurntSushi's, the maintained Rust reader) on
//! the same files, in one run: every record and every field of a large Ascend `kernel_details.csv`
//! (the msprof-analyze fixture repeated) and of a large rocprofv3 `kernel_trace.csv` (the SDK 1.0
//! fixture repeated). Both sides read the whole file from disk and visit each field's text; the
//! row count and the sum of field lengths must agree, else the run fails. Prints MB/s of each
//! and the ratio (faster of three runs each, interleaved).
//!
//! cargo run --release --manifest-path scripts/bench/csv_split/Cargo.toml -- [ROWS]
use prof_backend_amd::fuzz::rocprof_csv::{CsvReader as AmdReader, Record as AmdRecord};
use prof_backend_ascend::fuzz::csv_table::CsvReader as AscendReader;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Writes `rows` data rows: the header of `fixture`, then its rows repeated.
fn build(fixture: &Path, rows: usize, out: &Path) -> u64 {
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let body: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).expect("create"));
    writeln!(file, "{header}").unwrap();
    for i in 0..rows {
        writeln!(file, "{}", body[i % body.len()]).unwrap();
    }
    file.flush().unwrap();
    std::fs::metadata(out).unwrap().len()
}

/// (rows, sum of field lengths) with the `csv` crate.
fn csv_crate(path: &Path) -> (usize, usize) {
    let mut reader = csv::ReaderBuilder::new().from_path(path).expect("open");
    let mut record = csv::ByteRecord::new();
    let (mut rows, mut bytes) = (0, 0);
    while reader.read_byte_record(&mut record).expect("record") {
        rows += 1;
        bytes += record.iter().map(<[u8]>::len).sum::<usize>();
    }
    (rows, bytes)
}

fn prof_ascend(path: &Path) -> (usize, usize) {
    let mut reader = AscendReader::open(path).expect("open");
    let columns = reader.header().names().len();
    let (mut rows, mut bytes) = (0, 0);
    while let Some(row) = reader.next_row().expect("row") {
        rows += 1;
        bytes += (0..columns).map(|c| row.raw_text(c).map_or(0, str::len)).sum::<usize>();
    }
    (rows, bytes)
}

fn prof_amd(path: &Path) -> (usize, usize) {
    let mut reader = AmdReader::open(path).expect("open");
    let columns = reader.header().len();
    let (mut rows, mut bytes) = (0, 0);
    // The loop prof's kernel-trace loader runs: one record reused, each row split in place.
    let mut record = AmdRecord::default();
    while reader.next_record_into(&mut record).expect("record") {
        rows += 1;
        bytes += (0..columns).map(|c| reader.text(&record, c).len()).sum::<usize>();
    }
    (rows, bytes)
}

fn best(runs: usize, f: &dyn Fn() -> (usize, usize)) -> (f64, (usize, usize)) {
    let mut fastest = f64::MAX;
    let mut counted = (0, 0);
    for _ in 0..runs {
        let start = Instant::now();
        counted = std::hint::black_box(f());
        fastest = fastest.min(start.elapsed().as_secs_f64());
    }
    (fastest, counted)
}

fn main() {
    let rows: usize = std::env::args().nth(1).map_or(2_000_000, |r| r.parse().expect("ROWS"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let dir = std::env::temp_dir().join("prof-bench-csv");
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &str, fn(&Path) -> (usize, usize)); 2] = [
        ("Ascend kernel_details.csv", "tests/fixtures/ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv", prof_ascend),
        ("rocprofv3 kernel_trace.csv", "tests/fixtures/amd/rocprofv3/sdk1.0_kernel_trace.csv", prof_amd),
    ];
    let mut failed = false;
    for (name, fixture, ours) in cases {
        let file = dir.join(format!("{}.csv", name.split(' ').next().unwrap()));
        let size = build(&root.join(fixture), rows, &file) as f64 / 1e6;
        let (mut prof_s, mut csv_s) = (f64::MAX, f64::MAX);
        let (mut prof_n, mut csv_n) = ((0, 0), (0, 0));
        for _ in 0..3 {
            let (s, n) = best(1, &|| ours(&file));
            (prof_s, prof_n) = (prof_s.min(s), n);
            let (s, n) = best(1, &|| csv_crate(&file));
            (csv_s, csv_n) = (csv_s.min(s), n);
        }
        println!(
            "{name}, {rows} rows, {size:.0} MB: prof {prof_s:.3} s ({:.0} MB/s), csv crate {csv_s:.3} s ({:.0} MB/s): prof {:.2}x",
            size / prof_s,
            size / csv_s,
            csv_s / prof_s
        );
        if prof_n != csv_n {
            println!("  MISMATCH: prof read {prof_n:?} (rows, field bytes), the csv crate {csv_n:?}");
            failed = true;
        }
        std::fs::remove_file(&file).ok();
    }
    std::process::exit(i32::from(failed));
}
