use super::*;
use crate::test_fixtures::Scratch;
use prof_core::{summarize_kernels, Families, HostCategory, OpKind};
use std::path::PathBuf;

const REPORT1: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/nvidia/nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite"
);

/// A writable copy of report1 in `scratch` changed by `sql`: bad input derived from the real export.
fn altered(scratch: &Scratch, name: &str, sql: &str) -> PathBuf {
    let path = scratch.file(name, &std::fs::read(REPORT1).unwrap());
    rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
    path
}

fn reason(result: Result<Timeline>) -> String {
    match result {
        Ok(t) => panic!("loaded {} ops from what should be bad input", t.ops.len()),
        Err(e) => e.to_string(),
    }
}

// Expected values come from python3's sqlite3 module on the fixture, e.g.
// `select count(*), sum("end"-start) from CUPTI_ACTIVITY_KIND_KERNEL` -> (1, 2523567);
// `select count(*), sum(bytes) from CUPTI_ACTIVITY_KIND_MEMCPY` -> (3, 12582912), by copyKind
// 1: (2, 8388608), 2: (1, 4194304); runtime rows 12 (eventClass 0: 11, 1: 1); NVTX rows of
// eventType 59/60 with an end: 6, durations summing to 630146210; the kernel row's
// grid/block/registers/shared/device/stream/correlation: 64x64x1, 16x16x1, 40, 0, 0, 7, 123;
// `globalTid / 0x1000000 % 0x1000000, globalTid % 0x1000000` -> (19370, 19370), the pid that
// PROCESSES lists for ./nvtx_matrix_mul.
#[test]
fn report1_kernels_copies_launches_and_ranges() {
    let t = load(Path::new(REPORT1)).unwrap();
    let kernels: Vec<_> = t.ops.iter().filter(|o| o.kind() == OpKind::Kernel).collect();
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels.iter().map(|k| k.dur_ns()).sum::<u64>(), 2_523_567);
    let summary = summarize_kernels(&t, &Families::builtin());
    let top = &summary.kernels[0];
    assert_eq!(top.name, "matrixMulKernel(float *, float *, float *, int)");
    assert_eq!((top.kind, top.calls, top.total_ns), (OpKind::Kernel, 1, 2_523_567));

    let kernel = kernels[0];
    let details = t.details_of(kernel).unwrap();
    assert_eq!((details.grid, details.block), (Some([64, 64, 1]), Some([16, 16, 1])));
    assert_eq!((details.registers_per_thread, details.shared_memory_bytes), (Some(40), Some(0)));
    assert_eq!((kernel.device(), kernel.stream(), kernel.correlation.get()), (0, 7, Some(123)));

    let copies: Vec<_> = t.ops.iter().filter(|o| o.kind() == OpKind::Memcpy).collect();
    assert_eq!(copies.len(), 3);
    assert_eq!(copies.iter().map(|c| t.details_of(c).unwrap().bytes.unwrap()).sum::<u64>(), 12_582_912);
    // sqlite3: SELECT copyKind, srcKind, dstKind, count(*) … GROUP BY 1, 2, 3 → 1|0|2|2, 2|2|0|1: from
    // and to pageable host memory (ENUM_CUDA_MEM_KIND 0), named so.
    let htod: Vec<_> = copies.iter().filter(|c| t.name(c.name()) == "CUDA memcpy HtoD (Pageable -> Device)").collect();
    assert_eq!(htod.len(), 2);
    assert_eq!(copies.iter().filter(|c| t.name(c.name()) == "CUDA memcpy DtoH (Device -> Pageable)").count(), 1);
    assert_eq!(t.ops.len(), 4, "no memset table in this export");

    let runtime = t.host.iter().filter(|s| s.category == HostCategory::Runtime).count();
    let driver: Vec<_> = t.host.iter().filter(|s| s.category == HostCategory::Driver).collect();
    assert_eq!((runtime, driver.len()), (11, 1));
    assert_eq!(t.name(driver[0].name), "cuModuleGetLoadingMode");
    assert!(t.host.iter().all(|s| s.pid == 19_370 && s.tid == 19_370));

    let by_correlation = t.host_by_correlation();
    let linked: Vec<_> = kernels
        .iter()
        .filter_map(|k| k.correlation.get().and_then(|c| by_correlation.get(&c)))
        .map(|&i| &t.host[i])
        .collect();
    assert_eq!(linked.len(), 1, "python: kernels with a runtime row of the same correlationId");
    assert_eq!(t.name(linked[0].name), "cudaLaunchKernel");
    let copy_links =
        copies.iter().filter(|c| c.correlation.get().is_some_and(|id| by_correlation.contains_key(&id))).count();
    assert_eq!(copy_links, 3);

    let ranges: Vec<_> = t.host.iter().filter(|s| s.category == HostCategory::Annotation).collect();
    assert_eq!(ranges.len(), 6);
    assert_eq!(ranges.iter().map(|r| r.dur_ns()).sum::<u64>(), 630_146_210);
    assert!(ranges.iter().any(|r| t.name(r.name) == "Kernel Execution"));
    assert_eq!(t.span_ns(), Some((70_778_248, 385_852_675)));
    assert!(t.partial.is_none());
}

#[test]
fn export_metadata_and_recognition() {
    let info = export_info(Path::new(REPORT1)).unwrap();
    assert_eq!(info.product_version.as_deref(), Some("2024.6.2.225"));
    assert_eq!((info.schema_version.as_str(), info.schema_major), ("3.16.1", 3));
    assert!(is_nsys_export(Path::new(REPORT1)));
    let scratch = Scratch::new("nsys-sqlite-recognize");
    assert!(!is_nsys_export(&scratch.file("notes.sqlite", b"kernel,time\n")));
    let other = scratch.file("other.db", b"");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE rocpd_kernel (id INTEGER);").unwrap();
    assert!(!is_nsys_export(&other));
}

#[test]
fn memsets_and_nccl_kernels() {
    // report1 has neither, so they are added to a copy: the MEMSET table with the columns of the
    // nsys export schema, and a kernel row copied from the real one under an NCCL kernel name.
    let scratch = Scratch::new("nsys-sqlite-memset");
    let path = altered(
        &scratch,
        "with-memset.sqlite",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, \
           deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, \
           streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, \
           bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
         INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (390000000, 390001500, 0, 1, 0, 7, 130, NULL, 0, 65536, NULL, 2);
         INSERT INTO StringIds VALUES (5000, 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)');
         INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT start + 5000000, end + 5000000, deviceId, contextId, \
           greenContextId, 13, 131, globalPid, 5000, 5000, 5000, launchType, cacheConfig, registersPerThread, \
           gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, \
           localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId, \
           sharedMemoryLimitConfig FROM CUPTI_ACTIVITY_KIND_KERNEL;",
    );
    let t = load(&path).unwrap();
    let set = t.ops.iter().find(|o| o.kind() == OpKind::Memset).unwrap();
    assert_eq!((t.name(set.name()), set.dur_ns(), set.stream()), ("CUDA memset", 1_500, 7));
    assert_eq!(t.details_of(set).unwrap().bytes, Some(65_536));
    let comm = t.ops.iter().find(|o| o.kind() == OpKind::Communication).unwrap();
    assert_eq!((comm.stream(), comm.dur_ns()), (13, 2_523_567));
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Kernel).count(), 1);
}

#[test]
fn files_that_are_not_an_export_say_what_they_are() {
    let scratch = Scratch::new("nsys-sqlite-bad");
    let empty = scratch.file("empty.sqlite", b"");
    assert!(reason(load(&empty)).ends_with("empty.sqlite: is empty (0 bytes), not an nsys SQLite export"));

    let text = scratch.file("stats.sqlite", b"Time (%),Total Time (ns),Instances\n");
    let err = reason(load(&text));
    assert!(err.contains("stats.sqlite: is a text file (it starts `Time (%),Total Time (ns),Instances`)"), "{err}");

    let binary = scratch.file("blob.sqlite", &[0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);
    let err = reason(load(&binary));
    assert!(err.contains("is not an SQLite database (it starts with bytes 1f 8b 08 00 00 00 00 00)"), "{err}");

    let head = &std::fs::read(REPORT1).unwrap()[..4096];
    let truncated = scratch.file("cut.sqlite", head);
    let err = reason(load(&truncated));
    assert!(
        err.contains("is a truncated SQLite database (its header declares 892928 bytes but the file has 4096)"),
        "{err}"
    );

    let mut unvouched = std::fs::read(REPORT1).unwrap()[..40_960].to_vec();
    unvouched[95] ^= 1; // the header no longer vouches for its page count, so only SQLite can tell
    let err = reason(load(&scratch.file("cut-unvouched.sqlite", &unvouched)));
    assert!(err.contains("cut-unvouched.sqlite: is a damaged or truncated SQLite database"), "{err}");

    let report = scratch.file("run.nsys-rep", b"any bytes");
    let err = reason(load(&report));
    let command =
        format!("nsys export --type sqlite -o {} {}", scratch.0.join("run.sqlite").display(), report.display());
    assert!(err.contains("is an Nsight Systems report, not its SQLite export") && err.ends_with(&command), "{err}");

    let stream = scratch.file("run.qdstrm", b"any bytes");
    let err = reason(load(&stream));
    assert!(err.contains(&format!("QdstrmImporter -i {}", stream.display())), "{err}");
    assert!(err.ends_with(&format!("{}.nsys-rep", scratch.0.join("run").display())), "{err}");

    let missing = scratch.0.join("absent.sqlite");
    assert!(reason(load(&missing)).contains("absent.sqlite: No such file"));
}

#[test]
fn schema_version_and_tables_are_checked() {
    let scratch = Scratch::new("nsys-sqlite-schema");
    let newer = altered(
        &scratch,
        "v4.sqlite",
        "UPDATE META_DATA_EXPORT SET value = '4.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION';
         UPDATE META_DATA_EXPORT SET value = '4' WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR';",
    );
    let err = reason(load(&newer));
    assert!(
        err.contains("v4.sqlite: export schema version 4.0.0 (written by nsys 2024.6.2.225) is not supported"),
        "{err}"
    );

    let no_strings = altered(&scratch, "no-strings.sqlite", "DROP TABLE StringIds;");
    let err = reason(load(&no_strings));
    assert!(err.contains("without the table(s) StringIds that every nsys export has"), "{err}");

    let no_version =
        altered(&scratch, "no-version.sqlite", "DELETE FROM META_DATA_EXPORT WHERE name LIKE 'EXPORT_SCHEMA%';");
    assert!(reason(load(&no_version)).contains("META_DATA_EXPORT has no EXPORT_SCHEMA_VERSION"));

    let idle = altered(
        &scratch,
        "idle.sqlite",
        "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY; \
         DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;",
    );
    let err = reason(load(&idle));
    assert!(err.contains("has none of the tables CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY"), "{err}");
    // nsys's own word is relayed: its analysis warning (the text nsys 2026.1 writes in
    // DIAGNOSTIC_EVENT, fixture testcuda_rtx4060ti, where it says "No NVTX events collected. Does
    // the process use NVTX?" for NVTX), not the NVTX one.
    let said = altered(
        &scratch,
        "said.sqlite",
        "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY; \
         DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; \
         INSERT INTO DIAGNOSTIC_EVENT (timestamp, timestampType, source, severity, text, globalPid) VALUES \
         (1, 2, 3, 2, 'No CUDA events collected. Does the process use CUDA?', 0), \
         (2, 2, 3, 2, 'No NVTX events collected. Does the process use NVTX?', 0);",
    );
    let err = reason(load(&said));
    assert!(err.contains("; nsys itself said: \"No CUDA events collected. Does the process use CUDA?\""), "{err}");
    assert!(!err.contains("NVTX events"), "{err}");
    // No recorded export holds a drop warning: this wording is ours; the relay keys on the
    // words dropped / lost / overflow / incomplete in any warning.
    let dropped = altered(
        &scratch,
        "dropped.sqlite",
        "INSERT INTO DIAGNOSTIC_EVENT (timestamp, timestampType, source, severity, text, globalPid) VALUES \
         (1, 2, 1, 2, 'CUPTI buffers were dropped: some events were lost.', 0);",
    );
    let partial = load(&dropped).unwrap().partial.unwrap();
    assert!(partial.contains("nsys reported lost trace data: \"CUPTI buffers were dropped"), "{partial}");
}

#[test]
fn bad_rows_name_the_table_row_and_column() {
    let scratch = Scratch::new("nsys-sqlite-rows");
    let backwards = altered(
        &scratch,
        "backwards.sqlite",
        "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start - 1 WHERE correlationId = 122;",
    );
    let err = reason(load(&backwards));
    assert!(err.contains("backwards.sqlite:2: CUPTI_ACTIVITY_KIND_MEMCPY row 2: ends at"), "{err}");

    let dangling = altered(
        &scratch,
        "dangling.sqlite",
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999999, shortName = 999999;",
    );
    let err = reason(load(&dangling));
    assert!(err.contains("CUPTI_ACTIVITY_KIND_KERNEL row 1: refers to StringIds id 999999"), "{err}");

    let renamed =
        altered(&scratch, "renamed.sqlite", "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME COLUMN gridX TO gx;");
    let err = reason(load(&renamed));
    assert!(err.contains("reading CUPTI_ACTIVITY_KIND_KERNEL (export schema 3.16.1") && err.contains("gridX"), "{err}");

    // The copies' memory kinds name them: a table without one is an error naming it, as is a
    // kind that is not an integer.
    let no_kind =
        altered(&scratch, "no-kind.sqlite", "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY RENAME COLUMN srcKind TO source;");
    let err = reason(load(&no_kind));
    assert!(err.contains("reading CUPTI_ACTIVITY_KIND_MEMCPY") && err.contains("srcKind"), "{err}");
    let text_kind = altered(
        &scratch,
        "text-kind.sqlite",
        "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET dstKind = 'pageable' WHERE correlationId = 122;",
    );
    let err = reason(load(&text_kind));
    assert!(err.contains("CUPTI_ACTIVITY_KIND_MEMCPY row 2") && err.contains("dstKind"), "{err}");
}

#[test]
fn global_tid_splits_into_pid_and_tid() {
    assert_eq!(activity::split_global_tid(Some(281_799_951_403_946)), (19_370, 19_370));
    assert_eq!(activity::split_global_tid(None), (0, 0));
}

/// Exports of older nsys, each a real file (tests/fixtures/nvidia/SOURCES.md): schema 2.9.1 and
/// 3.0.0 keep their metadata in `EXPORT_META_DATA`, nsys 2021 had no metadata table. Expected
/// numbers from python3's sqlite3 on each file: `select count(*), sum("end"-start)` of the
/// kernel, memcpy and memset tables, and the kernel names ranked by total.
#[test]
fn older_exports_read_with_their_metadata_table_or_none() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/nvidia/nsys/sqlite");
    /// File, schema version, (count, ns) of kernels, copies and sets, top kernels (name, calls, ns).
    type Case = (&'static str, &'static str, [(usize, u64); 3], &'static [(&'static str, u64, u64)]);
    let cases: [Case; 3] = [
        (
            "hw5helper_nsys2022.1.3_schema2.9.1_EXPORT_META_DATA_report1.sqlite",
            "2.9.1",
            [(505, 8_002_635), (6, 3_280_901), (5, 31_808)],
            &[
                ("transposeNaive(float *, const float *)", 101, 4_105_892),
                ("transposeCoalesced(float *, const float *)", 101, 1_755_284),
                ("copy(float *, const float *)", 101, 743_644),
            ],
        ),
        (
            "parallel2_nsys2022.4.1_schema3.0.0_EXPORT_META_DATA_report3.sqlite",
            "3.0.0",
            [(3, 12_032), (3, 27_616), (1, 1_344)],
            &[("main_53_gpu", 1, 4_704), ("main_53_gpu__red", 1, 3_904), ("main_45_gpu", 1, 3_424)],
        ),
        (
            "mordred_nsys2021_no-metadata-table_report1.sqlite",
            "unrecorded (no metadata table: nsys 2021 or older)",
            [(12, 8_544_420), (48, 87_995), (12, 47_965)],
            &[("void probe_group_by_GPU2<128, 4>", 3, 8_419_851), ("void build_GPU2<128, 4>", 9, 124_569)],
        ),
    ];
    for (file, schema, totals, top) in cases {
        let path = dir.join(file);
        assert!(is_nsys_export(&path), "{file}");
        assert_eq!(export_info(&path).unwrap().schema_version, schema, "{file}");
        let t = load(&path).unwrap();
        for (kind, (count, ns)) in [OpKind::Kernel, OpKind::Memcpy, OpKind::Memset].into_iter().zip(totals) {
            let ops: Vec<_> = t.ops.iter().filter(|o| o.kind() == kind).collect();
            assert_eq!((ops.len(), ops.iter().map(|o| o.dur_ns()).sum::<u64>()), (count, ns), "{file} {kind:?}");
        }
        let summary = summarize_kernels(&t, &Families::builtin());
        let kernels: Vec<_> = summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel).collect();
        for (row, (name, calls, total)) in kernels.iter().zip(top) {
            assert!(row.name.starts_with(name), "{file}: {} is not {name}", row.name);
            assert_eq!((row.calls, row.total_ns), (*calls, *total), "{file} {name}");
        }
    }
}

/// The newest export schema among the fixtures (nsys 2026.1.1, 3.24.14), whose tables are
/// read from the file's pages: the numbers python's sqlite3 gives (SOURCES.md), and each
/// kernel linked to its launch call.
#[test]
fn nsys_2026_export_reads_as_sqlite_counts_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/nvidia/nsys/sqlite/testcuda_rtx4060ti_nsys2026.1.1_schema3.24.14_report1.sqlite");
    assert_eq!(export_info(&path).unwrap().schema_version, "3.24.14");
    let t = load(&path).unwrap();
    for (kind, totals) in [(OpKind::Kernel, (4, 536_542)), (OpKind::Memcpy, (12, 91_646_179))] {
        let ops: Vec<_> = t.ops.iter().filter(|o| o.kind() == kind).collect();
        assert_eq!((ops.len(), ops.iter().map(|o| o.dur_ns()).sum::<u64>()), totals, "{kind:?}");
    }
    let bytes: u64 = t.ops.iter().filter(|o| o.kind() == OpKind::Memcpy).filter_map(|o| t.details_of(o)?.bytes).sum();
    assert_eq!(bytes, 1_200_000_000);
    let categories = |c: HostCategory| t.host.iter().filter(|s| s.category == c).count();
    assert_eq!((categories(HostCategory::Runtime), categories(HostCategory::Driver)), (43, 1));
    let kernel = t.ops.iter().find(|o| o.kind() == OpKind::Kernel).unwrap();
    assert!(t.name(kernel.name()).starts_with("add_parallel(const float *"), "{}", t.name(kernel.name()));
    let stats = prof_core::analysis::launch::launch_stats(&t).unwrap();
    assert_eq!(stats.kernels, 4, "every kernel linked to its launch");
}

/// `--summary-only` folds each table part by part (`prof_core::op_totals`): on every real
/// export it must give what the summary of the whole loaded timeline gives (its span reaching
/// over the runtime calls and NVTX ranges load keeps), but for the rows' interner ids.
#[test]
fn summary_of_the_device_tables_folded_equals_the_summary_of_the_loaded_export() {
    let mut checked = 0;
    let scratch = Scratch::new("folded-exports");
    for path in crate::test_fixtures::nsys_exports(&scratch) {
        let families = Families::builtin();
        let mut whole = summarize_kernels(&load(&path).unwrap(), &families);
        let mut folded = summarize_device_ops(&path, &families).unwrap();
        for summary in [&mut whole, &mut folded] {
            summary.kernels.iter_mut().for_each(|k| k.name_id = prof_core::NameId(0));
        }
        assert!(whole.ops > 0, "{}", path.display());
        assert_eq!(folded, whole, "{}", path.display());
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// A real export of this project's own capture: `nsys profile -t cuda,nvtx` of a training step
/// loop of the Llama-style client on the H100 machine (nsys 2025.3.1 inside Nsight Compute,
/// its importer given libdw; the export says 2025.3.2.0, schema 3.20.3), gzipped. Expected
/// values from python3's sqlite3 on the same file (tests/fixtures/nvidia/SOURCES.md).
#[test]
fn h100_training_export_equals_sqlite_and_its_folded_summary() {
    let scratch = Scratch::new("h100-train");
    let exports = crate::test_fixtures::nsys_exports(&scratch);
    let path = exports.iter().find(|p| p.ends_with("h100-train_nsys2025.3.2_schema3.20.3.sqlite")).unwrap();
    let t = load(path).unwrap();
    let of = |kind: OpKind| {
        let ops: Vec<_> = t.ops.iter().filter(|o| o.kind() == kind).collect();
        (ops.len(), ops.iter().map(|o| o.dur_ns()).sum::<u64>())
    };
    // select count(*), sum("end"-start) from CUPTI_ACTIVITY_KIND_KERNEL / MEMCPY / MEMSET
    assert_eq!(of(OpKind::Kernel), (20_179, 1_260_568_820));
    assert_eq!(of(OpKind::Memcpy), (312, 77_543_689));
    assert_eq!(of(OpKind::Memset), (2_704, 2_676_543));
    // select sum(bytes) from CUPTI_ACTIVITY_KIND_MEMCPY
    let bytes: u64 = t.ops.iter().filter(|o| o.kind() == OpKind::Memcpy).filter_map(|o| t.details_of(o)?.bytes).sum();
    assert_eq!(bytes, 18_759_062_020);
    // eventClass 0: 20877 rows, 1: 27916; NVTX ranges (eventType 59/60, an end, start >= 0): 90
    let mut calls: Vec<usize> = [HostCategory::Runtime, HostCategory::Driver]
        .iter()
        .map(|c| t.host.iter().filter(|s| s.category == *c).count())
        .collect();
    calls.sort_unstable();
    assert_eq!(calls, [20_877, 27_916]);
    assert_eq!(t.host.iter().filter(|s| s.category == HostCategory::Annotation).count(), 90);
    let families = Families::builtin();
    let mut whole = summarize_kernels(&t, &families);
    // ... group by demangledName order by sum desc: 69 names; the top three:
    let top: Vec<(&str, u64, u64)> =
        whole.kernels.iter().take(3).map(|k| (k.name.as_str(), k.calls, k.total_ns)).collect();
    assert_eq!(
        top,
        [
            ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 870, 155_914_016),
            ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", 840, 118_133_447),
            ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NTT", 600, 110_202_448),
        ]
    );
    assert_eq!(whole.kernels.iter().filter(|k| k.kind == OpKind::Kernel).count(), 69);
    let mut folded = summarize_device_ops(path, &families).unwrap();
    for summary in [&mut whole, &mut folded] {
        summary.kernels.iter_mut().for_each(|k| k.name_id = prof_core::NameId(0));
    }
    assert_eq!(folded, whole);
}

#[test]
fn copies_name_pageable_memory_and_leave_pinned_plain() {
    // parallel2 (nsys 2022.4.1): sqlite3 → copyKind|srcKind|dstKind|count 1|1|2|1, 2|2|1|2 (pinned).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/nvidia/nsys/sqlite/parallel2_nsys2022.4.1_schema3.0.0_EXPORT_META_DATA_report3.sqlite"
    );
    let t = load(Path::new(path)).unwrap();
    let mut names: Vec<&str> = t.ops.iter().filter(|o| o.kind() == OpKind::Memcpy).map(|c| t.name(c.name())).collect();
    names.sort_unstable();
    assert_eq!(names, ["CUDA memcpy DtoH", "CUDA memcpy DtoH", "CUDA memcpy HtoD"]);
    assert_eq!(super::activity::copy_name(1, 0, 2), "CUDA memcpy HtoD (Pageable -> Device)");
    assert_eq!(super::activity::copy_name(2, 2, 0), "CUDA memcpy DtoH (Device -> Pageable)");
    assert_eq!(super::activity::copy_name(10, 4, 0), "CUDA memcpy PtoP (Managed -> Pageable)");
    assert_eq!(super::activity::copy_name(99, 0, 9), "CUDA memcpy kind 99 (Pageable -> Unknown)");
    assert_eq!(super::activity::copy_name(8, 2, 2), "CUDA memcpy DtoD");
}
