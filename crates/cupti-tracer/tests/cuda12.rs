//! The tracer under CUDA 12 CUPTI libraries (12.1: API version 18; 12.9: 28) and the H200's
//! CUDA 13 (130001), on one driver-API program (scripts/device/cupti_cu12.py; run by
//! scripts/device/cupti_cu12.sh, see tests/fixtures/nvidia/SOURCES.md). Expected numbers are
//! the program's own: 8 pageable host-to-device copies and 2 device-to-host copies of 4 MiB,
//! 4 memsets of 4 MiB, 20 `vadd` launches (grid 4096, block 256), 10 `scale` (2048, 512). The
//! three traces must decode to the same records.

use prof_backend_nvidia::fuzz::cupti_trace::load_paths;
use prof_core::{OpKind, Timeline};
use std::collections::BTreeMap;
use std::path::PathBuf;

type Key = (String, String, Option<[u32; 3]>, Option<[u32; 3]>, Option<u64>);

fn records(name: &str) -> BTreeMap<Key, usize> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/h200-cu12/")).join(name);
    let t: Timeline = load_paths(&[path]).unwrap();
    assert_eq!(t.partial, None, "{name}");
    let mut out = BTreeMap::new();
    for op in &t.ops {
        let d = t.details_of(op);
        let key = (
            format!("{:?}", op.kind()),
            t.name(op.name()).to_owned(),
            d.and_then(|d| d.grid),
            d.and_then(|d| d.block),
            d.and_then(|d| d.bytes),
        );
        assert!(op.dur_ns() > 0 && op.dur_ns() < 10_000_000, "{name}: {key:?} lasted {} ns", { op.dur_ns() });
        *out.entry(key).or_default() += 1;
    }
    out
}

#[test]
fn cuda_12_and_13_cupti_decode_to_the_programs_records() {
    const MIB4: Option<u64> = Some(4 << 20);
    let expected: BTreeMap<Key, usize> = [
        ((format!("{:?}", OpKind::Kernel), "vadd".to_owned(), Some([4096, 1, 1]), Some([256, 1, 1]), None), 20),
        ((format!("{:?}", OpKind::Kernel), "scale".to_owned(), Some([2048, 1, 1]), Some([512, 1, 1]), None), 10),
        ((format!("{:?}", OpKind::Memcpy), "CUDA memcpy HtoD (Pageable -> Device)".to_owned(), None, None, MIB4), 8),
        ((format!("{:?}", OpKind::Memcpy), "CUDA memcpy DtoH (Device -> Pageable)".to_owned(), None, None, MIB4), 2),
        ((format!("{:?}", OpKind::Memset), "CUDA memset".to_owned(), None, None, MIB4), 4),
    ]
    .into_iter()
    .collect();
    for name in ["cuda13.pcupti.gz", "cu12-12.1.105.pcupti.gz", "cu12-12.9.79.pcupti.gz"] {
        assert_eq!(records(name), expected, "{name}");
    }
}
