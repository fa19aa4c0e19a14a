//! The models against hand-counted FLOPs and bytes, the peak table against the names traces
//! print, and the sums over kernels counting each call once.

use super::*;
use crate::{DeviceOp, OpDetails, OpInputs};

fn call(op: &str, dims: &[&[u64]], dtype: Option<DType>, scalars: &[&str]) -> OpInputs {
    OpInputs {
        op: op.to_owned(),
        dims: dims.iter().map(|d| d.to_vec()).collect(),
        dtypes: dims.iter().map(|d| if d.is_empty() { None } else { dtype }).collect(),
        scalars: scalars.iter().map(|s| s.to_string()).collect(),
        kernels: 1,
    }
}

#[test]
fn gemms_count_two_mnk() {
    let w = work_of(&call("aten::mm", &[&[2048, 4096], &[4096, 11008]], Some(DType::Bf16), &[])).unwrap();
    assert_eq!(w.class, OpClass::Gemm);
    assert_eq!(w.flops, 2.0 * 2048.0 * 4096.0 * 11008.0);
    assert_eq!(w.bytes, (2048.0 * 4096.0 + 4096.0 * 11008.0 + 2048.0 * 11008.0) * 2.0);
    let w =
        work_of(&call("aten::addmm", &[&[512], &[141, 512], &[512, 2048], &[], &[]], Some(DType::Bf16), &[])).unwrap();
    assert_eq!(w.flops, 2.0 * 141.0 * 2048.0 * 512.0);
    assert_eq!(w.shape, "M141 N2048 K512");
    let w = work_of(&call("aten::bmm", &[&[32, 1024, 128], &[32, 128, 1024]], Some(DType::F16), &[])).unwrap();
    assert_eq!(w.flops, 2.0 * 32.0 * 1024.0 * 1024.0 * 128.0);
    // Inner dimensions that disagree: not a GEMM prof can count.
    assert!(work_of(&call("aten::mm", &[&[8, 16], &[32, 8]], Some(DType::F32), &[])).is_none());
}

#[test]
fn resnet_stem_convolution_has_its_output_size() {
    // 224² input, 7×7 kernel, stride 2, padding 3 → 112² output.
    let c = call(
        "aten::cudnn_convolution",
        &[&[32, 3, 224, 224], &[64, 3, 7, 7], &[], &[], &[], &[]],
        Some(DType::Bf16),
        &["", "", "[3, 3]", "[2, 2]", "[1, 1]", "1"],
    );
    let w = work_of(&c).unwrap();
    assert_eq!(w.flops, 2.0 * 32.0 * 64.0 * 112.0 * 112.0 * 3.0 * 49.0);
    assert!(w.shape.ends_with("out 112x112"), "{}", w.shape);
    // Without stride and padding recorded (PyTorch 1.9), nothing is claimed.
    let bare = call("aten::cudnn_convolution", &[&[32, 3, 224, 224], &[64, 3, 7, 7]], Some(DType::F32), &[]);
    assert!(work_of(&bare).is_none());
    // Backward asking for both gradients: two products of the forward's size.
    let back = call(
        "aten::convolution_backward",
        &[&[32, 64, 112, 112], &[32, 3, 224, 224], &[64, 3, 7, 7], &[], &[], &[], &[], &[], &[], &[], &[]],
        Some(DType::Bf16),
        &["", "", "", "[64]", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, False]"],
    );
    assert_eq!(work_of(&back).unwrap().flops, 2.0 * 2.0 * 32.0 * 64.0 * 112.0 * 112.0 * 3.0 * 49.0);
}

#[test]
fn attention_halves_when_causal_and_scales_backward() {
    let q: &[u64] = &[8, 16, 2048, 128];
    let mut scalars = vec![""; 13];
    scalars[10] = "True";
    let fwd = call("aten::_cudnn_attention_forward", &[q, q, q], Some(DType::Bf16), &scalars);
    assert_eq!(work_of(&fwd).unwrap().flops, 4.0 * 8.0 * 16.0 * 2048.0 * 2048.0 * 128.0 / 2.0);
    // Flash's own op takes (batch, seq, heads, dim).
    let bshd: &[u64] = &[1, 141, 8, 64];
    let mut scalars = vec![""; 15];
    scalars[8] = "False";
    let w = work_of(&call("aten::_flash_attention_forward", &[bshd, bshd, bshd], Some(DType::Bf16), &scalars)).unwrap();
    assert_eq!(w.flops, 4.0 * 8.0 * 141.0 * 141.0 * 64.0);
    assert_eq!(w.shape, "B1 H8 S141/141 D64");
    let mut scalars = vec![""; 16];
    scalars[11] = "False";
    let back = call("aten::_flash_attention_backward", &[bshd, bshd, bshd, bshd], Some(DType::Bf16), &scalars);
    assert_eq!(work_of(&back).unwrap().flops, 2.5 * 4.0 * 8.0 * 141.0 * 141.0 * 64.0);
}

#[test]
fn memory_bound_ops_count_bytes_in_and_out() {
    let w = work_of(&call("aten::add", &[&[1 << 20], &[1 << 20], &[]], Some(DType::Bf16), &["", "", "1"])).unwrap();
    assert_eq!((w.class, w.flops, w.bytes), (OpClass::Elementwise, 0.0, 3.0 * 2.0 * (1 << 20) as f64));
    let ln = call("aten::native_layer_norm", &[&[8192, 4096], &[], &[4096], &[4096], &[]], Some(DType::Bf16), &[]);
    let w = work_of(&ln).unwrap();
    assert_eq!(w.class, OpClass::Norm);
    assert_eq!(w.bytes, (2.0 * 8192.0 * 4096.0 + 2.0 * 4096.0) * 2.0);
    assert!(work_of(&call("aten::view", &[&[4, 4]], Some(DType::F32), &[])).is_none());
}

#[test]
fn peaks_follow_the_names_traces_print() {
    let name = |device: &str| peaks_of(device).map(|p| p.name);
    assert_eq!(name("NVIDIA H100 80GB HBM3"), Some("H100 SXM"));
    assert_eq!(name("NVIDIA H100 PCIe"), Some("H100 PCIe"));
    assert_eq!(name("NVIDIA H100 NVL"), Some("H100 NVL"));
    assert_eq!(name("NVIDIA H200"), Some("H200 SXM"));
    assert_eq!(name("NVIDIA A100-SXM4-80GB"), Some("A100 80GB SXM"));
    assert_eq!(name("NVIDIA A100 80GB PCIe"), Some("A100 80GB PCIe"));
    assert_eq!(name("NVIDIA A100-SXM4-40GB"), Some("A100 40GB"));
    assert_eq!(name("Tesla V100-DGXS-32GB"), Some("V100"));
    assert_eq!(name("AMD Instinct MI300X"), Some("MI300X"));
    assert_eq!(name("AMD Instinct MI250X / MI250"), Some("MI250X"));
    assert_eq!(name("AMD Radeon Graphics"), None);
    assert_eq!(name("ARTEMIS"), None);
    let h100 = peaks_of("NVIDIA H100 80GB HBM3").unwrap();
    assert_eq!(h100.matrix_flops(DType::Bf16, false), Some(989.5e12));
    assert_eq!(h100.matrix_flops(DType::F32, true), Some(494.5e12));
    assert!(known().all(|p| p.source.starts_with("http") || p.source.starts_with("NVIDIA")));
}

/// One call that launched two kernels (a transpose and the GEMM) counts its FLOPs once, over
/// both kernels' time.
#[test]
fn a_call_of_two_kernels_counts_once() {
    let mut t = Timeline::new("test");
    t.recorded_on = Some("NVIDIA H100 80GB HBM3".to_owned());
    let inputs = OpInputs { kernels: 2, ..call("aten::mm", &[&[4096, 4096], &[4096, 4096]], Some(DType::Bf16), &[]) };
    let details = OpDetails { inputs: Some(Box::new(inputs)), ..OpDetails::default() };
    for (i, name) in ["transpose", "gemm"].iter().enumerate() {
        let id = t.intern(name);
        t.push_op_with(DeviceOp::new(OpKind::Kernel, id, 0, 7, 1_000 + i as u64 * 300_000, 250_000), details.clone());
    }
    let r = roofline(&t).unwrap();
    assert_eq!(r.calls, 1);
    assert_eq!(r.covered_ns, 500_000);
    let flops = 2.0 * 4096f64.powi(3);
    assert!((r.worst[0].flops - flops).abs() < 1.0);
    assert!((r.worst[0].tflops - flops / 500e-6 / 1e12).abs() < 1e-9);
    let bound = (flops / 989.5e12 * 1e9).round() as u64;
    assert_eq!(r.bound_ns, Some(bound));
    assert_eq!(r.lost_ns, Some(500_000 - bound));
    assert!(!r.enough, "one call of 0.5 ms is below the floor");
}
