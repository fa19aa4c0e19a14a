//! Record decoding on byte buffers laid out as the CUDA 13.0 headers define them. The offsets
//! here are written out as numbers (from `offsetof` on cupti_activity.h 13.0.85), not taken
//! from the module's constants, so a wrong constant fails a test.

use super::*;

fn put<const N: usize>(buf: &mut [u8], off: usize, bytes: [u8; N]) {
    buf[off..off + N].copy_from_slice(&bytes);
}

/// A full 216-byte `CUpti_ActivityKernel10` with every prefix field set to a distinct value
/// and the tail (queued, submitted, graph ids, cluster dims...) filled with noise.
fn kernel10_bytes(kind_value: u32) -> Vec<u8> {
    let mut b = vec![0xA5u8; 216];
    put(&mut b, 0, kind_value.to_le_bytes());
    b[4] = 0x21; // cacheConfig
    b[5] = 1; // sharedMemoryConfig
    put(&mut b, 6, 168u16.to_le_bytes()); // registersPerThread
    put(&mut b, 16, 1_000_000_123u64.to_le_bytes()); // start
    put(&mut b, 24, 1_000_004_567u64.to_le_bytes()); // end
    put(&mut b, 32, 1_000_004_999u64.to_le_bytes()); // completed
    put(&mut b, 40, 3u32.to_le_bytes()); // deviceId
    put(&mut b, 44, 11u32.to_le_bytes()); // contextId
    put(&mut b, 48, 7u32.to_le_bytes()); // streamId
    put(&mut b, 52, 132i32.to_le_bytes()); // gridX
    put(&mut b, 56, 2i32.to_le_bytes()); // gridY
    put(&mut b, 60, 1i32.to_le_bytes()); // gridZ
    put(&mut b, 64, 256i32.to_le_bytes()); // blockX
    put(&mut b, 68, 1i32.to_le_bytes()); // blockY
    put(&mut b, 72, 1i32.to_le_bytes()); // blockZ
    put(&mut b, 76, 4096i32.to_le_bytes()); // staticSharedMemory
    put(&mut b, 80, 49_152i32.to_le_bytes()); // dynamicSharedMemory
    put(&mut b, 84, 0u32.to_le_bytes()); // localMemoryPerThread
    put(&mut b, 88, 0u32.to_le_bytes()); // localMemoryTotal
    put(&mut b, 92, 90_210u32.to_le_bytes()); // correlationId
    put(&mut b, 96, 12_345i64.to_le_bytes()); // gridId
    put(&mut b, 104, 0x7f00_dead_beefu64.to_le_bytes()); // name
    b
}

#[test]
fn kernel10_fields_decode_from_their_header_offsets() {
    for kind_value in [10u32, 3] {
        let bytes = kernel10_bytes(kind_value);
        let Some(Activity::Kernel { kernel, name_ptr }) = decode(&bytes) else {
            panic!("kind {kind_value} did not decode as a kernel");
        };
        assert_eq!(kernel.start, 1_000_000_123);
        assert_eq!(kernel.end, 1_000_004_567);
        assert_eq!(kernel.device, 3);
        assert_eq!(kernel.context, 11);
        assert_eq!(kernel.stream, 7);
        assert_eq!(kernel.grid, [132, 2, 1]);
        assert_eq!(kernel.block, [256, 1, 1]);
        assert_eq!(kernel.registers, 168);
        assert_eq!(kernel.static_shared, 4096);
        assert_eq!(kernel.dynamic_shared, 49_152);
        assert_eq!(kernel.correlation, 90_210);
        assert_eq!(kernel.name, 0);
        assert_eq!(name_ptr, 0x7f00_dead_beef);
    }
}

#[test]
fn kernel_prefix_needs_its_112_bytes() {
    let bytes = kernel10_bytes(10);
    assert!(decode(&bytes[..111]).is_none());
    assert!(matches!(decode(&bytes[..112]), Some(Activity::Kernel { .. })));
    assert_eq!(kernel10::PREFIX, 112);
}

#[test]
fn memcpy6_fields_decode_from_their_header_offsets() {
    let mut b = vec![0x5Au8; 96];
    put(&mut b, 0, 1u32.to_le_bytes());
    b[4] = 1; // copyKind HTOD
    b[5] = 2; // srcKind PINNED
    b[6] = 3; // dstKind DEVICE
    b[7] = 1; // flags ASYNC
    put(&mut b, 8, 67_108_864u64.to_le_bytes()); // bytes
    put(&mut b, 16, 500u64.to_le_bytes()); // start
    put(&mut b, 24, 9_500u64.to_le_bytes()); // end
    put(&mut b, 32, 1u32.to_le_bytes()); // deviceId
    put(&mut b, 36, 2u32.to_le_bytes()); // contextId
    put(&mut b, 40, 13u32.to_le_bytes()); // streamId
    put(&mut b, 44, 4_242u32.to_le_bytes()); // correlationId
    put(&mut b, 48, 0u32.to_le_bytes()); // runtimeCorrelationId
    let Some(Activity::Memcpy(m)) = decode(&b) else { panic!("not a memcpy") };
    assert_eq!(
        m,
        Memcpy {
            op: MemoryOp {
                start: 500,
                end: 9_500,
                bytes: 67_108_864,
                device: 1,
                context: 2,
                stream: 13,
                correlation: 4_242
            },
            copy_kind: 1,
            src_kind: 2,
            dst_kind: 3,
            flags: 1,
        }
    );
    assert!(decode(&b[..47]).is_none());
}

#[test]
fn memset4_fields_decode_from_their_header_offsets() {
    let mut b = vec![0x33u8; 88];
    put(&mut b, 0, 2u32.to_le_bytes());
    put(&mut b, 4, 0xFFu32.to_le_bytes()); // value
    put(&mut b, 8, 4_096u64.to_le_bytes()); // bytes
    put(&mut b, 16, 70u64.to_le_bytes()); // start
    put(&mut b, 24, 90u64.to_le_bytes()); // end
    put(&mut b, 32, 0u32.to_le_bytes()); // deviceId
    put(&mut b, 36, 1u32.to_le_bytes()); // contextId
    put(&mut b, 40, 7u32.to_le_bytes()); // streamId
    put(&mut b, 44, 55u32.to_le_bytes()); // correlationId
    put(&mut b, 48, 1u16.to_le_bytes()); // flags
    put(&mut b, 50, 3u16.to_le_bytes()); // memoryKind DEVICE
    let Some(Activity::Memset(m)) = decode(&b) else { panic!("not a memset") };
    assert_eq!(
        m,
        Memset {
            op: MemoryOp { start: 70, end: 90, bytes: 4_096, device: 0, context: 1, stream: 7, correlation: 55 },
            value: 0xFF,
            memory_kind: 3,
            flags: 1
        }
    );
}

#[test]
fn api_records_decode_with_their_domain() {
    let mut b = vec![0u8; 40];
    put(&mut b, 0, 5u32.to_le_bytes()); // RUNTIME
    put(&mut b, 4, 211u32.to_le_bytes()); // cbid cudaLaunchKernel_v7000
    put(&mut b, 8, 100u64.to_le_bytes());
    put(&mut b, 16, 160u64.to_le_bytes());
    put(&mut b, 24, 31_337u32.to_le_bytes()); // processId
    put(&mut b, 28, 31_340u32.to_le_bytes()); // threadId
    put(&mut b, 32, 90_210u32.to_le_bytes()); // correlationId
    put(&mut b, 36, 0u32.to_le_bytes()); // returnValue
    let Some(Activity::Api(api)) = decode(&b) else { panic!("not an api record") };
    assert_eq!(
        api,
        Api {
            start: 100,
            end: 160,
            pid: 31_337,
            tid: 31_340,
            correlation: 90_210,
            cbid: 211,
            domain: domain::RUNTIME,
            name: 0
        }
    );
    put(&mut b, 0, 4u32.to_le_bytes()); // DRIVER
    let Some(Activity::Api(api)) = decode(&b) else { panic!("not an api record") };
    assert_eq!(api.domain, domain::DRIVER);
    assert!(decode(&b[..39]).is_none());
}

#[test]
fn other_kinds_are_named_not_cast() {
    let mut b = vec![0u8; 216];
    put(&mut b, 0, 9u32.to_le_bytes()); // CONTEXT
    assert_eq!(decode(&b), Some(Activity::Other(9)));
    assert_eq!(decode(&[1, 0]), None);
    assert_eq!(record_kind(&b), Some(9));
}

#[test]
fn api_versions_of_cuda_9_to_13_are_known_and_a_future_one_is_not() {
    // CUDA 12.1's libcupti says 18, 12.9's 28 and 13.0's 130001 (printed on the H200 by
    // scripts/device/cupti_cu12.sh); 14.x would start at 140000.
    for version in [10, 18, 28, 130_001] {
        assert!(super::known_api_version(version), "{version}");
    }
    for version in [0, 9, 140_000] {
        assert!(!super::known_api_version(version), "{version}");
    }
}
