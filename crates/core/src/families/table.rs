//! The built-in family rules (the parent module documents the pattern syntax and decisions).

use super::Family;

/// The built-in rules, in evaluation order.
pub(super) const BUILTIN: &[(Family, &str)] = &[
    (Family::Collective, "nccl"),
    (Family::Collective, "rccl"),
    // NCCL's single-rank path (src/enqueue.cc → onerank.cu) launches `oneRankReduce<FuncPreMulSum…>`
    // with no "nccl" in its mangled name (seen on the H200: tests/fixtures/nvidia/h200-nccl).
    (Family::Collective, "onerankreduce"),
    (Family::Collective, "hccl"),
    (Family::Collective, "~hcom_"),
    (Family::Collective, "allreduce"),
    (Family::Collective, "all_reduce"),
    (Family::Collective, "allgather"),
    (Family::Collective, "all_gather"),
    (Family::Collective, "reducescatter"),
    (Family::Collective, "reduce_scatter"),
    (Family::Collective, "alltoall"),
    (Family::Collective, "all_to_all"),
    // Expert-parallel all-to-all: MoE tokens dispatched to their experts' ranks and combined
    // back over NVLink/RDMA by DeepEP's kernels, which its derivatives keep the namespaces of
    // (`deep_ep::intranode::dispatch`, `…::internode::combine`, `…::internode_ll::dispatch`;
    // DeepSeek's own build as `dpsk::ep::internode::…`, seen in deepseek-ai/profile-data's
    // train.json). Its layout kernel only counts the tokens bound for each rank and expert.
    (Family::MoeRouting, "dispatch_layout"),
    (Family::Collective, "deep_ep"),
    (Family::Collective, "::internode"),
    (Family::Collective, "::intranode"),
    (Family::Memcpy, "memcpy"),
    (Family::Memcpy, "rocclr_copybuffer"),
    // XLA's asynchronous copies (`copy-start.N` … `copy-done.N` in a TPU's `XLA Ops` line and
    // in HLO dumps): host-offload and cross-memory-space transfers; `copy-done` is the wait.
    (Family::Memcpy, "copy-start"),
    (Family::Memcpy, "copy-done"),
    (Family::Memset, "memset"),
    (Family::Memset, "rocclr_fillbuffer"),
    (Family::Attention, "flash_fwd"),
    (Family::Attention, "flash_bwd"),
    (Family::Attention, "flash_attn"),
    (Family::Attention, "flashattn"),
    (Family::Attention, "flashattention"),
    (Family::Attention, "pytorch_flash"),
    (Family::Attention, "fmha"),
    (Family::Attention, "attention"),
    (Family::Attention, "attn"),
    (Family::Attention, "sdpa"),
    // FlashInfer (vLLM, SGLang) names its kernels for the KV cache they read
    // (`BatchDecodeWithPagedKVCacheKernel`, `BatchPrefillWithRaggedKVCacheKernel`,
    // `SinglePrefillWithKVCacheKernel`) and merges split-KV partial states (`MergeStatesKernel`,
    // `VariableLengthMergeStatesKernel`): the word "attention" is only in their template
    // arguments, which a shortened name drops.
    (Family::Attention, "withkvcache"),
    (Family::Attention, "withpagedkvcache"),
    (Family::Attention, "withraggedkvcache"),
    (Family::Attention, "mergestates"),
    // cuDNN's fused attention backward, around its main kernel: rowsum(dO · O) before, dQ cast
    // to 16 bits after (the H200 zoo's training step, tests/fixtures/nvidia/h200-zoo/llm-train).
    (Family::Attention, "compute_dot_do_o"),
    (Family::Attention, "convert_dq_to"),
    (Family::MoeRouting, "moe_align"),
    (Family::MoeRouting, "router"),
    (Family::MoeRouting, "routing"),
    (Family::MoeRouting, "gating"),
    (Family::MoeRouting, "topkgating"),
    (Family::TopK, "topk"),
    (Family::TopK, "top_k"),
    (Family::GroupedMatmul, "grouped_gemm"),
    (Family::GroupedMatmul, "groupedgemm"),
    (Family::GroupedMatmul, "grouped_mm"),
    (Family::GroupedMatmul, "groupedmatmul"),
    (Family::GroupedMatmul, "grouped_matmul"),
    // CUTLASS 3.x grouped GEMMs (torch._grouped_mm on sm90, seen on the H200:
    // tests/fixtures/nvidia/h200-zoo/moe-grouped) carry the problem shape in their mangled name.
    (Family::GroupedMatmul, "groupproblemshape"),
    (Family::GroupedMatmul, "fused_moe"),
    (Family::GroupedMatmul, "moe_gemm"),
    // TensorRT-LLM's batched expert GEMMs over block-scaled formats (`bmm_MxE4m3_MxE2m1…`).
    (Family::GroupedMatmul, "bmm_mx"),
    // Convolutions before GEMM: cuDNN's implicit GEMMs are named `…fprop_implicit_gemm…`.
    (Family::Conv, "fprop"),
    (Family::Conv, "dgrad"),
    (Family::Conv, "wgrad"),
    (Family::Conv, "winograd"),
    (Family::Conv, "convolve"),
    (Family::Conv, "convolution"),
    (Family::Conv, "conv2d"),
    (Family::Conv, "conv3d"),
    (Family::Conv, "conv1d"),
    (Family::Conv, "~conv_"),
    (Family::Conv, "implicit_convolve"),
    (Family::Conv, "fft2d_r2c"),
    (Family::Conv, "fft2d_c2r"),
    (Family::Conv, "fft1d_r2c"),
    (Family::Conv, "fft1d_c2r"),
    (Family::Conv, "flip_filter"),
    (Family::Conv, "miopensp"),
    (Family::Conv, "igemm_fwd"),
    (Family::Conv, "igemm_bwd"),
    (Family::Conv, "igemm_wrw"),
    (Family::Conv, "im2col"),
    // XLA's 3-D im2col on ROCm (`Im3d2Col`, TraceLens' JAX conv on MI300X).
    (Family::Conv, "im3d2col"),
    (Family::Conv, "col2im"),
    // cuDNN's convolution kernels by precision and tensor-core shape (`volta_scudnn_128x64_relu_…`,
    // `cudnn_infer_ampere_scudnn_…`, `turing_h1688cudnn_…`, `ampere_fp16_s16816cudnn_…`,
    // `volta_h884cudnn_…`), and the offset kernels of its implicit-GEMM convolutions
    // (`cask_cudnn_infer::computeOffsetsKernel`): 58 % of the device time of a real ResNet-50
    // run on a T4, and most of the V100 ResNet fixture's, had been `other`.
    (Family::Conv, "scudnn"),
    (Family::Conv, "hcudnn"),
    (Family::Conv, "884cudnn"),
    (Family::Conv, "1688cudnn"),
    (Family::Conv, "816cudnn"),
    (Family::Conv, "computeoffsetskernel"),
    (Family::Conv, "computeboffsetskernel"),
    (Family::Gemv, "gemv"),
    (Family::Gemm, "gemm"),
    (Family::Gemm, "nvjet"),
    (Family::Gemm, "cijk_"),
    (Family::Gemm, "xmma"),
    (Family::Gemm, "cutlass"),
    (Family::Gemm, "matmul"),
    // PyTorch's weight-only low-bit matmuls (`weight_int8pack_mm_kernel`, `_weight_int4pack_mm`).
    (Family::Gemm, "int8pack_mm"),
    (Family::Gemm, "int4pack_mm"),
    (Family::Gemm, "splitkreduce"),
    (Family::Gemm, "blockscaled"),
    (Family::Gemm, "block_scaled"),
    (Family::Gemm, "mxe4m3"),
    (Family::Gemm, "mxe2m1"),
    (Family::Gemm, "mxf8"),
    (Family::Gemm, "mxf4"),
    (Family::Gemm, "nvfp4"),
    // Triton templates torch.compile picks for matmuls (`triton_tem_fused_mm_0`, `triton_mm`).
    (Family::Gemm, "triton_tem_fused_mm"),
    (Family::Gemm, "triton_tem_fused_addmm"),
    (Family::Gemm, "triton_tem_fused_bmm"),
    (Family::Gemm, "~triton_mm"),
    (Family::Gemm, "~triton_bmm"),
    (Family::Quantize, "quant"),
    (Family::Quantize, "fp8*cast"),
    (Family::Quantize, "cast*fp8"),
    // PyTorch's casts to float8 (`float8_copy_kernel_cuda`), the quantize step of FP8 linears.
    (Family::Quantize, "float8_copy"),
    (Family::Quantize, "fp8_copy"),
    (Family::Norm, "rms_norm"),
    (Family::Norm, "rmsnorm"),
    (Family::Norm, "layer_norm"),
    (Family::Norm, "layernorm"),
    (Family::Norm, "group_norm"),
    (Family::Norm, "groupnorm"),
    (Family::Norm, "batch_norm"),
    (Family::Norm, "batchnorm"),
    (Family::Norm, "instance_norm"),
    (Family::Norm, "instancenorm"),
    // PyTorch's group and layer norm kernels by their own names (group_norm_kernel.cu,
    // layer_norm_kernel.cu; the second zoo's diffusion UNet step, 7.4 % in `other` before).
    (Family::Norm, "rowwisemomentscudakernel"),
    (Family::Norm, "computeinternalgradientscudakernel"),
    (Family::Norm, "gammabetabackwardcudakernel"),
    (Family::Norm, "computefusedparamscudakernel"),
    (Family::Norm, "computebackwardfusedparamscudakernel"),
    (Family::Norm, "bn_fw"),
    (Family::Norm, "bn_bw"),
    // A compiler's fused normalisation: Inductor's `triton_per_fused_…_mean_mul_pow_rsqrt_0`
    // (an RMSNorm written as ops, fused into one persistent reduction).
    (Family::Norm, "triton_*fused*rsqrt"),
    (Family::Rope, "rotary"),
    (Family::Rope, "~rope"),
    (Family::Reduction, "softmax"),
    (Family::Reduction, "reduce"),
    (Family::Reduction, "reduction"),
    (Family::Reduction, "~argmax"),
    (Family::Reduction, "~argmin"),
    (Family::Reduction, "max_pool"),
    (Family::Reduction, "avg_pool"),
    (Family::Reduction, "maxpool"),
    (Family::Reduction, "avgpool"),
    (Family::Reduction, "pooling"),
    (Family::Reduction, "average_pool"),
    // Compilers' generated reductions: Inductor's reduction and persistent-reduction kernels,
    // nvFuser's reduction and persistent schedulers.
    (Family::Reduction, "~triton_red_"),
    (Family::Reduction, "~triton_per_"),
    (Family::Reduction, "nvfuser_reduction"),
    (Family::Reduction, "nvfuser_inner_persistent"),
    (Family::Reduction, "nvfuser_outer_persistent"),
    // TensorFlow's Eigen kernels: a reduction expression, else elementwise (below).
    (Family::Reduction, "eigenmetakernel*tensorreductionop"),
    // Layout transforms before elementwise (an XLA `loop_transpose_fusion` is a transpose):
    // cuDNN's NCHW↔NHWC conversions around the convolutions of an NCHW model (the H200 zoo's
    // resnet-train and alexnet-infer), MIOpen's batched transposes, plain transpose kernels.
    (Family::Layout, "nchwtonhwc"),
    (Family::Layout, "nhwctonchw"),
    (Family::Layout, "nchw2nhwc"),
    (Family::Layout, "nhwc2nchw"),
    (Family::Layout, "batched_transpose"),
    (Family::Layout, "~transpose"),
    // Ascend's format conversions (`TransData`: ND ↔ FRACTAL_NZ / NC1HWC0) and transposes.
    (Family::Layout, "transdata"),
    // Index work: sort (PyTorch's bitonic/radix sorts, CUB's radix sorts), scan (CUB's
    // DeviceScan, cumsum), gather/scatter/index kernels, embedding lookups (seen in the H200
    // zoo's MoE clients and the kineto 8-rank fixtures).
    (Family::Index, "radixsort"),
    (Family::Index, "radix_sort"),
    (Family::Index, "merge_sort"),
    (Family::Index, "onesweep"),
    (Family::Index, "bitonicsort"),
    (Family::Index, "segmentedsort"),
    (Family::Index, "mergesort"),
    (Family::Index, "~sort"),
    (Family::Index, "devicescan"),
    (Family::Index, "cumsum"),
    (Family::Index, "cumprod"),
    (Family::Index, "~scan"),
    (Family::Index, "gather"),
    (Family::Index, "scatter"),
    (Family::Index, "index_"),
    (Family::Index, "indexing"),
    (Family::Index, "indexfunc"),
    (Family::Index, "write_indices"),
    (Family::Index, "embedding"),
    // The embedding (bag) backward's segment kernels (embedding_backward_cuda_kernel.cu; the
    // second zoo's recommender step, 9.7 % in `other` before).
    (Family::Index, "compute_grad_weight"),
    (Family::Index, "partials_per_segment"),
    (Family::Index, "partial_segment_offset"),
    (Family::Index, "num_of_partial_segments"),
    (Family::Index, "~unique"),
    // Counting by key: `torch.bincount` / `histc` (`kernelHistogram1D`), the tokens per expert
    // of a sort-routed MoE (the H100 zoo's grouped-GEMM client).
    (Family::Index, "histogram"),
    (Family::Index, "bincount"),
    (Family::Index, "nonzero"),
    // Ascend's `Index` op type (matched whole).
    (Family::Index, "=index"),
    // RNG: PyTorch's distribution kernels (randn, dropout masks drawn alone), Philox, cuRAND,
    // Ascend's random ops (`aclnnInplaceNormal_DSARandomNormal…`).
    (Family::Rng, "distribution_"),
    (Family::Rng, "philox"),
    (Family::Rng, "curand"),
    (Family::Rng, "randperm"),
    (Family::Rng, "dsarandom"),
    (Family::Rng, "randomnormal"),
    (Family::Rng, "randomuniform"),
    // Optimizer steps: PyTorch's foreach/fused steps (`multi_tensor_apply_kernel`), named
    // Adam/SGD/LAMB kernels, Ascend `ApplyAdamW`.
    (Family::Optimizer, "multi_tensor_apply"),
    (Family::Optimizer, "fused_adam"),
    (Family::Optimizer, "~adam"),
    (Family::Optimizer, "applyadam"),
    (Family::Optimizer, "~sgd"),
    (Family::Optimizer, "fused_lamb"),
    (Family::Optimizer, "multi_tensor_lamb"),
    (Family::Elementwise, "elementwise"),
    (Family::Elementwise, "silu"),
    (Family::Elementwise, "gelu"),
    (Family::Elementwise, "swiglu"),
    // Dropout and concatenation, cuDNN's tensor scaling.
    (Family::Elementwise, "dropout"),
    (Family::Elementwise, "catarraybatchedcopy"),
    (Family::Elementwise, "scalepackedtensor"),
    // torch.compile's pointwise fusions (`triton_poi_fused_add_mul_0`).
    (Family::Elementwise, "~triton_poi_"),
    // nvFuser's pointwise scheduler (`nvfuser_pointwise_f0_c1_r0_g0`).
    (Family::Elementwise, "nvfuser_pointwise"),
    // TensorFlow's Eigen tensor expressions (`Eigen::internal::EigenMetaKernel<…TensorAssignOp…>`),
    // 73 % of TensorFlow's 2020 multi-worker GPU demo profile had been `other`.
    (Family::Elementwise, "eigenmetakernel"),
    // XLA's loop fusions (`loop_multiply_fusion`) and input fusions other than reductions
    // (`input_concatenate_fusion`; `input_reduce_fusion` is a reduction above), seen in the
    // H200 JAX capture (tests/fixtures/nvidia/h200-phases/jax-loop).
    (Family::Elementwise, "loop_*_fusion"),
    (Family::Elementwise, "input_*_fusion"),
];

/// Ascend op types (`Type` column) that are elementwise: matched as whole names.
pub(super) const ASCEND_ELEMENTWISE: &[&str] = &[
    "Add",
    "Adds",
    "AddN",
    "Mul",
    "Muls",
    "Sub",
    "RealDiv",
    "Div",
    "Cast",
    "Square",
    "Sqrt",
    "Rsqrt",
    "Exp",
    "Log",
    "Neg",
    "Abs",
    "Maximum",
    "Minimum",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "Equal",
    "LogicalNot",
    "LogicalAnd",
    "LogicalOr",
    "ZerosLike",
    "OnesLike",
    "Fill",
    "BroadcastTo",
    "Select",
    "Reciprocal",
    "Tril",
    "Relu",
    "Sigmoid",
    "Tanh",
    // Optimizer and backward pointwise ops (the msprof-analyze advisor trace's AdamW step).
    "Addcmul",
    "Addcdiv",
    "Axpy",
    "ReluGrad",
];

/// XLA's custom fusions on a GPU, which its `RenameFusions` pass leaves with their bare name
/// (the kernel `fusion_128` of the HLO `fusion.128`; `xla/service/gpu/transforms/
/// rename_fusions.cc` renames every other fusion `loop_…_fusion` / `input_…_fusion`): the
/// normalisation diamonds the Triton softmax rewriter fuses (softmax, layer norm: a row-wise
/// reduction), seen in the H200/H100 JAX zoo captures; a **reduction**. A TPU's `XLA Ops` line
/// names the HLO instruction itself (`fusion.12`, any fusion): that is left to its op type.
/// On ROCm the kernel carries its code object's `.kd` (kernel descriptor) suffix: `fusion_5.kd`
/// (TraceLens' MI300 JAX 0.8 captures).
pub(super) fn xla_custom_fusion(lower: &str) -> bool {
    let lower = lower.strip_suffix(".kd").unwrap_or(lower);
    lower
        .strip_prefix("fusion")
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}
