//! Encoding checked against the sizes and offsets of the format table in the crate docs,
//! and decoding checked to give back what was encoded.

use super::*;

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

const KERNEL: Kernel = Kernel {
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
const OP: MemoryOp = MemoryOp { start: 1, end: 2, bytes: 3, device: 4, context: 5, stream: 6, correlation: 7 };
const MEMCPY: Memcpy = Memcpy { op: OP, copy_kind: 8, src_kind: 9, dst_kind: 10, flags: 11 };
const MEMSET: Memset = Memset { op: OP, value: 12, memory_kind: 13, flags: 14 };
const API: Api = Api { start: 15, end: 16, pid: 17, tid: 18, correlation: 19, cbid: 20, domain: 2, name: 21 };

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

    let mut kb = Vec::new();
    KERNEL.encode(&mut kb);
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
    MEMCPY.encode(&mut rest);
    assert_eq!(rest.len(), 1 + body::MEMCPY);
    assert_eq!((u64_at(&rest, 17), u32_at(&rest, 37)), (3, 7), "bytes and correlation");
    assert_eq!(&rest[41..], [8, 9, 10, 11, 0, 0, 0, 0]);
    rest.clear();
    MEMSET.encode(&mut rest);
    assert_eq!(rest.len(), 1 + body::MEMSET);
    assert_eq!((u32_at(&rest, 41), &rest[45..]), (12, &[13, 0, 14, 0][..]));
    rest.clear();
    API.encode(&mut rest);
    assert_eq!(rest.len(), 1 + body::API);
    assert_eq!((u32_at(&rest, 29), &rest[33..37], u32_at(&rest, 37)), (20, &[2, 0, 0, 0][..], 21));
    rest.clear();
    encode_end(&mut rest, 1, 2);
    assert_eq!(rest.len(), 1 + body::END);
    rest.clear();
    encode_string(&mut rest, 9, "héllo");
    assert_eq!(rest.len(), 1 + body::STRING_HEAD + "héllo".len());
    assert_eq!(u32_at(&rest, 5), 6);
}

#[test]
fn every_record_decodes_to_what_was_encoded_and_a_cut_one_to_none() {
    let mut file = Vec::new();
    Header { pid: 9, rank: -1, local_rank: 2, t0: 3 }.encode(&mut file);
    encode_string(&mut file, 4, "gemm");
    KERNEL.encode(&mut file);
    MEMCPY.encode(&mut file);
    MEMSET.encode(&mut file);
    API.encode(&mut file);
    encode_u64_record(&mut file, tag::DROPPED, 5);
    encode_u64_record(&mut file, tag::WINDOW_END, 6);
    encode_end(&mut file, 4, 1);
    assert_eq!(Header::decode(&file), Ok(Header { pid: 9, rank: -1, local_rank: 2, t0: 3 }));
    let expected = [
        Record::String { id: 4, text: b"gemm" },
        Record::Kernel(KERNEL),
        Record::Memcpy(MEMCPY),
        Record::Memset(MEMSET),
        Record::Api(API),
        Record::Dropped(5),
        Record::WindowEnd(6),
        Record::End { records: 4, untimed: 1 },
    ];
    let mut pos = HEADER_LEN;
    let mut starts = Vec::new();
    for want in expected {
        starts.push(pos);
        let (record, next) = read_record(&file, pos).unwrap().unwrap();
        assert_eq!(record, want);
        pos = next;
    }
    assert_eq!(pos, file.len());
    assert_eq!(read_record(&file, pos), Ok(None));
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(file.len());
        for cut in start + 1..end {
            assert_eq!(read_record(&file[..cut], start), Ok(None), "record at {start} cut at {cut}");
        }
    }
}

#[test]
fn bad_headers_tags_and_string_lengths_are_errors() {
    let mut file = Vec::new();
    Header { pid: 1, rank: 0, local_rank: 0, t0: 0 }.encode(&mut file);
    assert_eq!(Header::decode(&file[..31]), Err(FormatError::ShortHeader { len: 31 }));
    let mut magic = file.clone();
    magic[0] = b'X';
    assert_eq!(Header::decode(&magic), Err(FormatError::NoMagic));
    let mut version = file.clone();
    version[8] = 9;
    assert_eq!(Header::decode(&version).unwrap_err().to_string(), "is prof-cupti format version 9; this prof reads 1");
    file.push(0xEE);
    assert_eq!(read_record(&file, 32), Err(FormatError::UnknownTag { tag: 0xEE, at: 32 }));
    file[32] = tag::STRING;
    file.extend((0u32).to_le_bytes());
    file.extend((MAX_STRING_READ as u32 + 1).to_le_bytes());
    assert_eq!(read_record(&file, 32), Err(FormatError::StringTooLong { len: MAX_STRING_READ + 1, at: 32 }));
    assert_eq!(tag::name(tag::WINDOW_END), "window end");
    assert_eq!(tag::name(0xEE), "unknown");
}

#[test]
fn clip_cuts_long_names_on_a_character_boundary() {
    let long = "é".repeat(MAX_STRING);
    let cut = clip(&long);
    assert!(cut.len() <= MAX_STRING && cut.len() >= MAX_STRING - 1);
    assert!(cut.chars().all(|c| c == 'é'));
    assert_eq!(clip("short"), "short");
}

#[test]
fn api_modes_parse_their_own_names_in_any_case() {
    for mode in [ApiMode::Launch, ApiMode::All, ApiMode::None] {
        assert_eq!(ApiMode::parse(mode.as_str()), Some(mode));
        assert_eq!(ApiMode::parse(&format!(" {} ", mode.as_str().to_uppercase())), Some(mode));
    }
    assert_eq!(ApiMode::parse("launches"), None);
    assert_eq!(ApiMode::default(), ApiMode::Launch);
}

#[test]
fn file_names_carry_pid_and_ranks_and_are_recognised() {
    assert_eq!(trace_file_name(4242, Some(3), Some(1)), "prof-cupti-4242-rank3-local1.pcupti");
    assert_eq!(trace_file_name(7, None, None), "prof-cupti-7.pcupti");
    assert!(is_trace_file(std::path::Path::new("/x/prof-cupti-1-rank2-local0.pcupti")));
    assert!(!is_trace_file(std::path::Path::new("/x/prof-cupti-1.jsonl")));
    assert!(!is_trace_file(std::path::Path::new("/tmp/one-file.pcupti")));
}

/// Every recorded H200 trace (tests/fixtures/nvidia/h200-cupti and h200-ranks/cupti, written
/// by the release tracer) decodes record by record to its end and encodes back to the same
/// bytes, so reader and writer agree with the format the fixtures were written in.
#[test]
fn recorded_h200_traces_decode_and_encode_back_byte_for_byte() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia/");
    let mut files = Vec::new();
    for dir in ["h200-cupti", "h200-ranks/cupti"] {
        for entry in std::fs::read_dir(format!("{root}{dir}")).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.retain(|p| is_trace_file(p));
    assert_eq!(files.len(), 5, "{files:?}");
    for path in files {
        let file = std::fs::read(&path).unwrap();
        let mut again = Vec::new();
        Header::decode(&file).unwrap().encode(&mut again);
        let mut pos = HEADER_LEN;
        while let Some((record, next)) = read_record(&file, pos).unwrap() {
            match record {
                Record::String { id, text } => encode_string(&mut again, id, std::str::from_utf8(text).unwrap()),
                Record::Kernel(k) => k.encode(&mut again),
                Record::Memcpy(m) => m.encode(&mut again),
                Record::Memset(m) => m.encode(&mut again),
                Record::Api(a) => a.encode(&mut again),
                Record::Dropped(n) => encode_u64_record(&mut again, tag::DROPPED, n),
                Record::WindowEnd(t) => encode_u64_record(&mut again, tag::WINDOW_END, t),
                Record::End { records, untimed } => encode_end(&mut again, records, untimed),
            }
            pos = next;
        }
        assert_eq!(pos, file.len(), "{} ends with a whole record", path.display());
        assert!(again == file, "{} encodes back to other bytes", path.display());
    }
}
