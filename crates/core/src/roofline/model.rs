//! The work of one framework call from its recorded inputs: FLOPs and bytes by op class, the
//! way TraceLens and the FlashAttention papers count them.
//! - GEMM (`mm`, `addmm`, `bmm`, `baddbmm`, `_scaled_mm`): 2·M·N·K (·batch); bytes A + B + C
//!   (+ bias).
//! - Convolution (`cudnn_convolution`, `miopen_convolution`, `convolution`, `_convolution`,
//!   `convolution_backward`): 2·N·K·Ho·Wo·(C/groups)·R·S, output size from stride, padding and
//!   dilation; the backward counts one such product per gradient its output mask asks for.
//! - Attention (flash, memory-efficient, cuDNN, forward and backward): 2·B·H·Sq·Sk·(Dqk + Dv),
//!   halved when causal, ×2.5 backward; bytes Q, K, V and O (and dO, dQ, dK, dV backward).
//! - Norms, softmax, elementwise: no FLOPs counted, bytes in + out (memory-bound by nature).

use super::op_names::{ELEMENTWISE, NORMS, SOFTMAX};
use crate::{DType, OpInputs};
use serde::Serialize;

/// What kind of work a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    /// Matrix multiplies.
    Gemm,
    /// Convolutions.
    Conv,
    /// Fused attention.
    Attention,
    /// Layer, RMS, batch and group norms.
    Norm,
    /// Softmax and log-softmax.
    Softmax,
    /// Pointwise ops and copies.
    Elementwise,
}

impl OpClass {
    /// Its name in reports.
    pub fn label(self) -> &'static str {
        match self {
            OpClass::Gemm => "gemm",
            OpClass::Conv => "conv",
            OpClass::Attention => "attention",
            OpClass::Norm => "norm",
            OpClass::Softmax => "softmax",
            OpClass::Elementwise => "elementwise",
        }
    }

    /// True when the class runs on the matrix (tensor) pipe, so its FLOPs bound it.
    pub fn matrix(self) -> bool {
        matches!(self, OpClass::Gemm | OpClass::Conv | OpClass::Attention)
    }
}

/// One call's work.
#[derive(Debug, Clone, PartialEq)]
pub struct Work {
    /// Its class.
    pub class: OpClass,
    /// Floating-point operations (0 for memory-bound classes).
    pub flops: f64,
    /// Bytes it must move at least (each input read once, each output written once).
    pub bytes: f64,
    /// The element type its FLOPs run at (the first input's).
    pub dtype: Option<DType>,
    /// Its shape in words (`M=2048 N=11008 K=4096`).
    pub shape: String,
}

fn numel(dims: &[u64]) -> f64 {
    dims.iter().map(|&d| d as f64).product()
}

fn tensor_bytes(inputs: &OpInputs, i: usize) -> f64 {
    let dims = inputs.dim(i);
    match inputs.dtype(i) {
        Some(t) if !dims.is_empty() => numel(dims) * t.bytes() as f64,
        _ => 0.0,
    }
}

/// The work of `inputs`' call, `None` for an op no model covers or inputs that do not fit its
/// signature.
pub fn work_of(inputs: &OpInputs) -> Option<Work> {
    let op = inputs.op.strip_prefix("aten::").unwrap_or(&inputs.op);
    match op {
        "mm" | "_scaled_mm" => gemm(inputs, 0, 1, None),
        "addmm" => gemm(inputs, 1, 2, Some(0)),
        "bmm" => gemm(inputs, 0, 1, None),
        "baddbmm" => gemm(inputs, 1, 2, Some(0)),
        // CANN's matmuls (Ascend op tables): (x1, x2[, bias]), either side possibly transposed.
        "MatMul" | "MatMulV2" | "MatMulV3" | "BatchMatMul" | "BatchMatMulV2" | "BatchMatMulV3" => cann_gemm(inputs),
        "cudnn_convolution" | "miopen_convolution" | "cudnn_convolution_relu" | "cudnn_convolution_add_relu" => {
            // cuDNN's (input, weight, padding, stride, dilation, groups, …); the relu variants carry
            // (input, weight, [z, alpha,] bias, stride, padding, dilation, groups).
            match op {
                "cudnn_convolution" => conv(inputs, [3, 2, 4], 5, None),
                // (input, weight, bias, padding, stride, dilation, groups, …)
                "miopen_convolution" => conv(inputs, [4, 3, 5], 6, None),
                "cudnn_convolution_relu" => conv(inputs, [3, 4, 5], 6, None),
                _ => conv(inputs, [5, 6, 7], 8, None),
            }
        }
        "convolution" | "_convolution" => {
            // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
            if inputs.scalar(6).eq_ignore_ascii_case("true") {
                return None;
            }
            conv(inputs, [3, 4, 5], 8, None)
        }
        "convolution_backward" => {
            // (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
            // output_padding, groups, output_mask)
            let mask = flags(inputs.scalar(10));
            let grads = mask.iter().take(2).filter(|&&m| m).count().max(1);
            conv(inputs, [4, 5, 6], 9, Some(grads))
        }
        _ => attention(inputs, op).or_else(|| memory(inputs, op)),
    }
}

/// `M×K · K×N` (with a batch where A is 3-D), A at `a`, B at `b`, a bias at `bias`.
fn gemm(inputs: &OpInputs, a: usize, b: usize, bias: Option<usize>) -> Option<Work> {
    let (da, db) = (inputs.dim(a), inputs.dim(b));
    let (batch, m, k, n) = match (da, db) {
        ([m, k], [k2, n]) if k == k2 => (1, *m, *k, *n),
        ([b1, m, k], [b2, k2, n]) if k == k2 && b1 == b2 => (*b1, *m, *k, *n),
        _ => return None,
    };
    // Without a recorded type (PyTorch 1.9 wrote dims only) the FLOPs stand, the bytes and the
    // bound do not.
    let dtype = inputs.dtype(a);
    let flops = 2.0 * (batch * m * n * k) as f64;
    let out_bytes = dtype.map_or(0.0, |t| (batch * m * n) as f64 * out_size(t));
    let bytes =
        tensor_bytes(inputs, a) + tensor_bytes(inputs, b) + out_bytes + bias.map_or(0.0, |c| tensor_bytes(inputs, c));
    let shape = if batch > 1 { format!("B{batch} M{m} N{n} K{k}") } else { format!("M{m} N{n} K{k}") };
    Some(Work { class: OpClass::Gemm, flops, bytes, dtype, shape })
}

/// A CANN matmul: the shapes say which side is transposed (the dimension both share is K);
/// where both orders fit (square), the FLOPs are the same.
fn cann_gemm(inputs: &OpInputs) -> Option<Work> {
    let (a, b) = (inputs.dim(0), inputs.dim(1));
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let batch_a: u64 = a[..a.len() - 2].iter().product();
    let batch_b: u64 = b[..b.len() - 2].iter().product();
    let (a0, a1, b0, b1) = (a[a.len() - 2], a[a.len() - 1], b[b.len() - 2], b[b.len() - 1]);
    let (m, k, n) = if a1 == b0 {
        (a0, a1, b1)
    } else if a1 == b1 {
        (a0, a1, b0)
    } else if a0 == b0 {
        (a1, a0, b1)
    } else if a0 == b1 {
        (a1, a0, b0)
    } else {
        return None;
    };
    let batch = batch_a.max(batch_b).max(1);
    let dtype = inputs.dtype(0);
    let flops = 2.0 * (batch * m * n * k) as f64;
    let out = dtype.map_or(0.0, |t| (batch * m * n) as f64 * out_size(t));
    let bytes = tensor_bytes(inputs, 0) + tensor_bytes(inputs, 1) + tensor_bytes(inputs, 2) + out;
    let shape = if batch > 1 { format!("B{batch} M{m} N{n} K{k}") } else { format!("M{m} N{n} K{k}") };
    Some(Work { class: OpClass::Gemm, flops, bytes, dtype, shape })
}

/// An fp8 GEMM writes bf16 (the `_scaled_mm` default people use); others their input type.
fn out_size(dtype: DType) -> f64 {
    match dtype {
        DType::F8E4M3 | DType::F8E5M2 => 2.0,
        other => other.bytes() as f64,
    }
}

/// `[True, True, False]` → flags.
fn flags(text: &str) -> Vec<bool> {
    text.trim_matches(|c| c == '[' || c == ']').split(',').map(|s| s.trim().eq_ignore_ascii_case("true")).collect()
}

/// `[1, 1]` or `1` → per spatial dimension.
fn per_dim(text: &str, n: usize, default: u64) -> Option<Vec<u64>> {
    let text = text.trim();
    if text.is_empty() {
        // Not recorded (PyTorch before 1.13 wrote no `Concrete Inputs`): the output size is
        // unknown, so no FLOPs are claimed.
        let _ = default;
        return None;
    }
    let values: Vec<u64> =
        text.trim_matches(|c| c == '[' || c == ']').split(',').map(|s| s.trim().parse().ok()).collect::<Option<_>>()?;
    match values.len() {
        1 => Some(vec![values[0]; n]),
        len if len == n => Some(values),
        _ => None,
    }
}

/// A convolution: input at 0 (at 1 for the backward, whose grad_output at 0 is the output),
/// weight next; `[stride, padding, dilation]` at `at`, groups at `groups`; `grads` for the
/// backward (how many products it computes).
fn conv(inputs: &OpInputs, at: [usize; 3], groups: usize, grads: Option<usize>) -> Option<Work> {
    let (x, w) = if grads.is_some() { (1, 2) } else { (0, 1) };
    let (input, weight) = (inputs.dim(x), inputs.dim(w));
    if input.len() < 3 || weight.len() != input.len() {
        return None;
    }
    let spatial = input.len() - 2;
    let (n, c) = (input[0], input[1]);
    let k = weight[0];
    let stride = per_dim(inputs.scalar(at[0]), spatial, 1)?;
    let padding = per_dim(inputs.scalar(at[1]), spatial, 0)?;
    let dilation = per_dim(inputs.scalar(at[2]), spatial, 1)?;
    let groups: u64 = inputs.scalar(groups).trim().parse().ok().filter(|&g| g > 0)?;
    let out: Vec<u64> = match grads {
        Some(_) => inputs.dim(0).get(2..)?.to_vec(),
        None => (0..spatial)
            .map(|d| {
                let span = dilation[d] * (weight[2 + d] - 1) + 1;
                (input[2 + d] + 2 * padding[d]).checked_sub(span).map(|v| v / stride[d].max(1) + 1)
            })
            .collect::<Option<_>>()?,
    };
    let window: f64 = weight[2..].iter().map(|&r| r as f64).product();
    let products = grads.unwrap_or(1) as f64;
    let flops = 2.0 * n as f64 * k as f64 * numel(&out) * (c / groups) as f64 * window * products;
    let dtype = inputs.dtype(x);
    let out_bytes = n as f64 * k as f64 * numel(&out) * dtype.map_or(0, DType::bytes) as f64;
    let bytes = tensor_bytes(inputs, x) + tensor_bytes(inputs, w) + out_bytes * if grads.is_some() { 2.0 } else { 1.0 };
    let kernel = weight[2..].iter().map(u64::to_string).collect::<Vec<_>>().join("x");
    let out = out.iter().map(u64::to_string).collect::<Vec<_>>().join("x");
    let grouped = if groups > 1 { format!(" g{groups}") } else { String::new() };
    let shape = format!("N{n} C{c} K{k} {kernel} out {out}{grouped}");
    Some(Work { class: OpClass::Conv, flops, bytes, dtype, shape })
}

/// Fused attention ops: (name, q index, heads before sequence (BHSD), index of `is_causal`
/// (or of the memory-efficient kernels' mask type, where 1 and 2 are causal), backward).
const ATTENTION: &[(&str, usize, bool, usize, bool)] = &[
    ("_flash_attention_forward", 0, false, 8, false),
    ("_scaled_dot_product_flash_attention", 0, true, 4, false),
    ("_scaled_dot_product_flash_attention_for_cpu", 0, true, 4, false),
    ("_scaled_dot_product_efficient_attention", 0, true, 6, false),
    ("_scaled_dot_product_cudnn_attention", 0, true, 6, false),
    ("_cudnn_attention_forward", 0, true, 10, false),
    ("_cudnn_attention_backward", 1, true, 14, true),
    ("_efficient_attention_forward", 0, false, 9, false),
    ("_efficient_attention_backward", 1, false, 14, true),
    ("_flash_attention_backward", 1, false, 11, true),
    ("_scaled_dot_product_flash_attention_backward", 1, true, 11, true),
    ("_scaled_dot_product_efficient_attention_backward", 1, true, 11, true),
    ("_scaled_dot_product_cudnn_attention_backward", 1, true, 14, true),
];

fn attention(inputs: &OpInputs, op: &str) -> Option<Work> {
    let &(_, q, heads_first, causal_at, backward) = ATTENTION.iter().find(|(name, ..)| *name == op)?;
    let (dq, dk, dv) = (inputs.dim(q), inputs.dim(q + 1), inputs.dim(q + 2));
    let ([b, x1, x2, d], [_, y1, y2, _], [_, _, _, dv_]) = (dq, dk, dv) else { return None };
    let (h, sq, sk) = if heads_first { (*x1, *x2, *y2) } else { (*x2, *x1, *y1) };
    let flag = inputs.scalar(causal_at).trim();
    let causal = flag.eq_ignore_ascii_case("true") || flag.parse::<u32>().is_ok_and(|m| m >= 1);
    let mut flops = 2.0 * (*b * h) as f64 * sq as f64 * sk as f64 * (*d + *dv_) as f64;
    if causal {
        flops /= 2.0;
    }
    if backward {
        flops *= 2.5;
    }
    let dtype = inputs.dtype(q);
    let qkv = tensor_bytes(inputs, q) + tensor_bytes(inputs, q + 1) + tensor_bytes(inputs, q + 2);
    let o = (*b * h) as f64 * sq as f64 * *dv_ as f64 * dtype.map_or(0, DType::bytes) as f64;
    let bytes = if backward { 2.0 * qkv + 2.0 * o } else { qkv + o };
    let shape = format!("B{b} H{h} S{sq}/{sk} D{d}{}", if causal { " causal" } else { "" });
    Some(Work { class: OpClass::Attention, flops, bytes, dtype, shape })
}

/// A memory-bound op: bytes in (every tensor input) and out (the largest input's size, in the
/// first input's type; in place, the first input written back).
fn memory(inputs: &OpInputs, op: &str) -> Option<Work> {
    let class = if NORMS.contains(&op) {
        OpClass::Norm
    } else if SOFTMAX.contains(&op) {
        OpClass::Softmax
    } else if ELEMENTWISE.contains(&op) {
        OpClass::Elementwise
    } else {
        return None;
    };
    let dtype = (0..inputs.dims.len()).find_map(|i| inputs.dtype(i).filter(|_| !inputs.dim(i).is_empty()))?;
    let tensors: Vec<usize> =
        (0..inputs.dims.len()).filter(|&i| inputs.dtype(i).is_some() && !inputs.dim(i).is_empty()).collect();
    let largest = tensors.iter().map(|&i| numel(inputs.dim(i))).fold(0.0, f64::max);
    let read: f64 =
        if op == "fill_" || op == "zero_" { 0.0 } else { tensors.iter().map(|&i| tensor_bytes(inputs, i)).sum() };
    let written = largest * dtype.bytes() as f64;
    let read = if op == "copy_" { read - tensor_bytes(inputs, 0) } else { read };
    let shape =
        inputs.dim(tensors.first().copied().unwrap_or(0)).iter().map(u64::to_string).collect::<Vec<_>>().join("x");
    Some(Work { class, flops: 0.0, bytes: read + written, dtype: Some(dtype), shape })
}
