//! Why an ncu run failed, read from its log, with the message and fix to show the user.
//!
//! The wordings matched are ncu's own, as recorded:
//! - `==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU
//!   Performance Counters on the target device 0. …` (deepseek-ai/DeepGEMM#46,
//!   HazyResearch/ThunderKittens#73); NVIDIA's fix, `NVreg_RestrictProfilingToAdminUsers=0`, is
//!   quoted in cihlab/fics-cluster-guide#4 and ComputeCanada/puppet-magic_castle#348.
//! - `Failed to initialize the profiler: LibraryNotLoaded. Check that a compatible driver
//!   library is loaded.` (exit 9): seen on our H200 under gVisor and in public notes from
//!   gVisor-based clouds, and from an ncu whose `--list-chips` lacked the GPU's chip.
//! - `==WARNING== No kernels were profiled.` then `Available Kernels:` and numbered names
//!   (recorded on our H200, `tests/fixtures/nvidia/h200-ncu/no-kernels.log`); ncu exits 0.
//! - `==ERROR== Could not open report file '…'.` (recorded there, `import-missing.log`).

use serde::Serialize;

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NcuFailureKind {
    /// The driver lets only administrators read the performance counters.
    Permission,
    /// ncu could not load its profiling library or reach the driver's profiling interface.
    ProfilerInit,
    /// The kernel filter matched no launch.
    NoKernels,
    /// An `--import` step found no report (the capture did not write one).
    ReportMissing,
    /// Another `==ERROR==` line.
    Other,
}

/// A classified ncu failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuFailure {
    /// What went wrong.
    pub kind: NcuFailureKind,
    /// The log line it was recognised by.
    pub evidence: String,
    /// One line for the user.
    pub message: String,
    /// What to do about it.
    pub fix: String,
    /// For [`NcuFailureKind::NoKernels`]: the kernel names ncu listed as seen.
    pub available_kernels: Vec<String>,
}

/// The fix ncu's ERR_NVGPUCTRPERM page gives.
pub const PERMISSION_FIX: &str = "run prof as root, or let every user read the counters: \
     `sudo modprobe -r nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia NVreg_RestrictProfilingToAdminUsers=0` \
     (for good: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d, then reboot); \
     in a container, start it with --cap-add=SYS_ADMIN; see https://developer.nvidia.com/ERR_NVGPUCTRPERM";

/// Classifies the failure in an ncu `log`; `None` when the log shows none of the known ones.
/// Call it on the capture log even when ncu exited 0: "No kernels were profiled" does.
pub fn classify_failure(log: &str) -> Option<NcuFailure> {
    let line_with = |needle: &str| log.lines().map(str::trim).find(|l| l.contains(needle)).map(str::to_owned);
    let failure = |kind, evidence: String, message: &str, fix: &str| NcuFailure {
        kind,
        evidence,
        message: message.to_owned(),
        fix: fix.to_owned(),
        available_kernels: Vec::new(),
    };
    if let Some(evidence) = line_with("ERR_NVGPUCTRPERM") {
        return Some(failure(
            NcuFailureKind::Permission,
            evidence,
            "ncu may not read the GPU performance counters: the driver restricts them to administrators (ERR_NVGPUCTRPERM)",
            PERMISSION_FIX,
        ));
    }
    if let Some(evidence) = line_with("Failed to initialize the profiler").or_else(|| line_with("LibraryNotLoaded")) {
        return Some(failure(
            NcuFailureKind::ProfilerInit,
            evidence,
            "ncu could not initialise its profiler (LibraryNotLoaded): the driver's profiling interface is not reachable",
            "profile on a machine or VM that exposes the driver's profiling interface (sandboxed runtimes such as \
             gVisor do not), and check that this Nsight Compute knows the GPU (`ncu --list-chips`; newer GPUs need \
             a newer Nsight Compute)",
        ));
    }
    if let Some(evidence) = line_with("No kernels were profiled") {
        let mut found = failure(
            NcuFailureKind::NoKernels,
            evidence,
            "ncu profiled no kernel: the kernel regex matched no launch (or --launch-skip skipped them all)",
            "pick a kernel from the ones ncu saw, or lower --launch-skip",
        );
        found.available_kernels = available_kernels(log);
        return Some(found);
    }
    if let Some(evidence) = line_with("Could not open report file") {
        return Some(failure(
            NcuFailureKind::ReportMissing,
            evidence,
            "the ncu report is missing: the capture step did not write it",
            "read the capture step's log for why ncu stopped",
        ));
    }
    let evidence = line_with("==ERROR==")?;
    let message = evidence.trim_start_matches("==ERROR==").trim().to_owned();
    Some(failure(NcuFailureKind::Other, evidence, &message, "see the ncu log"))
}

/// The names under ncu's `Available Kernels:` list (`1. name`, `2. name` …).
pub fn available_kernels(log: &str) -> Vec<String> {
    log.lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with("Available Kernels:"))
        .skip(1)
        .map_while(|l| {
            let (number, name) = l.split_once(". ")?;
            (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then(|| name.trim().to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture;

    #[test]
    fn no_kernels_lists_what_ncu_saw() {
        let failure = classify_failure(&fixture("h200-ncu/no-kernels.log")).unwrap();
        assert_eq!(failure.kind, NcuFailureKind::NoKernels);
        assert_eq!(failure.evidence, "==WARNING== No kernels were profiled.");
        // `grep -c '^[0-9]*\. ' no-kernels.log` = 11; first and last as listed there.
        assert_eq!(failure.available_kernels.len(), 11);
        assert_eq!(failure.available_kernels[0], "bitonicSortKVInPlace");
        assert_eq!(failure.available_kernels[10], "vectorized_layer_norm_kernel");
        assert!(failure.available_kernels.contains(&"nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_NNT".to_owned()));
    }

    #[test]
    fn permission_and_init_failures_as_ncu_prints_them() {
        // The two lines of deepseek-ai/DeepGEMM#46 and the capture it interrupted.
        let log = "==PROF== Connected to process 9012 (/usr/local/bin/my-benchmark)\n\
                   ==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance \
                   Counters on the target device 0. For instructions on enabling permissions and to get more \
                   information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n\
                   ==PROF== Disconnected from process 9012\n";
        let failure = classify_failure(log).unwrap();
        assert_eq!(failure.kind, NcuFailureKind::Permission);
        assert!(failure.evidence.starts_with("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"));
        assert!(failure.fix.contains("NVreg_RestrictProfilingToAdminUsers=0"), "{}", failure.fix);
        let init =
            "Failed to initialize the profiler: LibraryNotLoaded. Check that a compatible driver library is loaded.";
        let failure =
            classify_failure(&format!("==PROF== Connected to process 77 (/usr/bin/python3)\n{init}\n")).unwrap();
        assert_eq!(failure.kind, NcuFailureKind::ProfilerInit);
        assert_eq!(failure.evidence, init);
    }

    #[test]
    fn import_of_a_missing_report_and_other_errors() {
        let failure = classify_failure(&fixture("h200-ncu/import-missing.log")).unwrap();
        assert_eq!(failure.kind, NcuFailureKind::ReportMissing);
        assert_eq!(failure.evidence, "==ERROR== Could not open report file '/tmp/does-not-exist.ncu-rep'.");
        // SzymonOzog/FastSoftmax#1.
        let failure =
            classify_failure("==PROF== Connected to process 9137\n==ERROR== Unknown Error on device 0.\n").unwrap();
        assert_eq!((failure.kind, failure.message.as_str()), (NcuFailureKind::Other, "Unknown Error on device 0."));
        assert_eq!(classify_failure(&fixture("h200-ncu/nvjet-capture.log")), None);
    }
}
