//! What XSpace names say: an HLO instruction's name and opcode, a host event's layer, and a
//! kernel's launch shape from its `kernel_details` stat.

use prof_core::{HostCategory, OpDetails, OpKind};

/// What a device event is: by its own name first (`Memset 3`, `MemcpyH2D`, an NCCL kernel),
/// then by its stream's line when that line holds only copies or sets. A line named
/// `Stream #14(Compute,Memset)` holds kernels and sets both: its kernels stay kernels.
pub(super) fn op_kind(line: &str, event: &str) -> OpKind {
    let lower = event.to_ascii_lowercase();
    if lower.contains("nccl") || lower.contains("rccl") {
        OpKind::Communication
    } else if lower.starts_with("memset") {
        OpKind::Memset
    } else if lower.starts_with("memcpy") {
        OpKind::Memcpy
    } else if line.contains("Compute") {
        OpKind::Kernel
    } else if line.contains("Memcpy") {
        OpKind::Memcpy
    } else if line.contains("Memset") {
        OpKind::Memset
    } else {
        OpKind::Kernel
    }
}

/// The instruction name of an HLO instruction's text (`%fusion.3 = f32[…] …` → `fusion.3`).
pub(super) fn hlo_name(text: &str) -> &str {
    match text.split_once(" = ") {
        Some((name, _)) => name.trim_start_matches('%'),
        None => text,
    }
}

/// `fusion.3` → `fusion`: an HLO instruction's name without the number XLA adds.
pub(super) fn numbering_dropped(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, n)) if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

pub(super) fn host_category(name: &str) -> HostCategory {
    let b = name.as_bytes();
    if name.starts_with("cuda") || name.starts_with("hip") {
        HostCategory::Runtime
    } else if b.len() > 2 && b.starts_with(b"cu") && b[2].is_ascii_uppercase() {
        HostCategory::Driver
    } else {
        HostCategory::Other
    }
}

/// Grid, block, registers and shared memory from a `kernel_details` stat.
pub(super) fn kernel_details(text: &str) -> Option<OpDetails> {
    let mut details = OpDetails::default();
    let dims = |v: &str| {
        let mut parts = v.split(',').map(|p| p.trim().parse::<u32>().ok());
        Some([parts.next()??, parts.next()??, parts.next()??])
    };
    let mut shared: Option<u64> = None;
    for pair in text.split_whitespace() {
        let Some((key, value)) = pair.split_once(':') else { continue };
        match key {
            "grid" => details.grid = dims(value),
            "block" => details.block = dims(value),
            "regs" => details.registers_per_thread = value.parse().ok(),
            "static_shared" | "dynamic_shared" | "group_mem" => {
                if let Ok(bytes) = value.parse::<u64>() {
                    shared = Some(shared.unwrap_or(0) + bytes);
                }
            }
            _ => {}
        }
    }
    details.shared_memory_bytes = shared;
    (details != OpDetails::default()).then_some(details)
}
