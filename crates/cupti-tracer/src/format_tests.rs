//! Encoding tests: sizes and offsets as the module docs give them.

use super::*;

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

#[test]
fn header_and_records_have_the_documented_sizes_and_offsets() {
    let mut out = Vec::new();
    Header { pid: 4242, rank: 3, local_rank: -1, t0: 77 }.encode(&mut out);
    assert_eq!(out.len(), HEADER_LEN);
    assert_eq!(&out[..8], b"PROFCUPT");
    assert_eq!(u32_at(&out, 8), 1);
    assert_eq!(u32_at(&out, 12), 4242);
    assert_eq!(u32_at(&out, 16), 3);
    assert_eq!(u32_at(&out, 20), u32::MAX);
    assert_eq!(u64_at(&out, 24), 77);

    let k = Kernel {
        start: 10,
        end: 20,
        device: 1,
        context: 2,
        stream: 7,
        correlation: 99,
        name: 5,
        grid: [3, 4, 5],
        block: [128, 1, 1],
        registers: 40,
        static_shared: 1024,
        dynamic_shared: 2048,
    };
    let mut kb = Vec::new();
    k.encode(&mut kb);
    assert_eq!(kb.len(), 1 + body::KERNEL);
    assert_eq!(kb[0], tag::KERNEL);
    assert_eq!(u64_at(&kb, 1), 10);
    assert_eq!(u64_at(&kb, 9), 20);
    assert_eq!(u32_at(&kb, 25), 7);
    assert_eq!(u32_at(&kb, 29), 99);
    assert_eq!(u32_at(&kb, 33), 5);
    assert_eq!(u32_at(&kb, 37), 3);
    assert_eq!(u32_at(&kb, 49), 128);
    assert_eq!(u16::from_le_bytes([kb[61], kb[62]]), 40);
    assert_eq!(u32_at(&kb, 65), 1024);
    assert_eq!(u32_at(&kb, 69), 2048);

    let mut rest = Vec::new();
    Memcpy::default().encode(&mut rest);
    assert_eq!(rest.len(), 1 + body::MEMCPY);
    rest.clear();
    Memset::default().encode(&mut rest);
    assert_eq!(rest.len(), 1 + body::MEMSET);
    rest.clear();
    Api::default().encode(&mut rest);
    assert_eq!(rest.len(), 1 + body::API);
    rest.clear();
    encode_end(&mut rest, 1, 2);
    assert_eq!(rest.len(), 1 + body::END);
    rest.clear();
    encode_string(&mut rest, 9, "héllo");
    assert_eq!(rest.len(), 1 + body::STRING_HEAD + "héllo".len());
    assert_eq!(u32_at(&rest, 5), 6);
}

#[test]
fn clip_cuts_long_names_on_a_character_boundary() {
    let long = "é".repeat(MAX_STRING);
    let cut = clip(&long);
    assert!(cut.len() <= MAX_STRING && cut.len() >= MAX_STRING - 1);
    assert!(cut.chars().all(|c| c == 'é'));
    assert_eq!(clip("short"), "short");
}
