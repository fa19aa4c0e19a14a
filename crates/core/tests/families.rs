//! Kernel families on names taken from several vendors' recorded outputs, and the family
//! file format.

use prof_core::{Families, Family, OpKind};
use std::path::Path;

fn fixture(path: &str) -> String {
    let full = format!("{}/../../tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The fields of one CSV line: commas split fields outside double quotes, `""` is a quote.
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    out.push(field);
    out
}

/// The values of column `column` (by header name) of a CSV fixture.
fn column(path: &str, column: &str) -> Vec<String> {
    let text = fixture(path);
    let mut lines = text.lines().filter(|l| !l.is_empty());
    let header = fields(lines.next().expect("header"));
    let at = header.iter().position(|h| h == column).unwrap_or_else(|| panic!("{path}: no column {column}"));
    lines.map(|l| fields(l).swap_remove(at)).collect()
}

/// Asserts that a name starting with `prefix` is in `names` and has `family`.
fn check(families: &Families, names: &[String], prefix: &str, family: Family) {
    let name = names.iter().find(|n| n.starts_with(prefix)).unwrap_or_else(|| panic!("no name starts with {prefix}"));
    assert_eq!(families.classify(OpKind::Kernel, name), family, "{name}");
}

/// Each kernel of `cases` (name, family) is classified so by `families`.
fn assert_kernel_families(families: &Families, cases: &[(&str, Family)]) {
    for &(name, family) in cases {
        assert_eq!(families.classify(OpKind::Kernel, name), family, "{name}");
    }
}

#[test]
fn nsys_kernel_names_from_blackwell_and_a_custom_llm_runtime() {
    let f = Families::builtin();
    let sm103 = column("nvidia/nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv", "Name");
    check(&f, &sm103, "kernel_cutlass_kernel_profile_target", Family::Gemm);
    check(&f, &sm103, "nvjet_sm103_hsh_128x256_64x6_2x1_2cta_v_bz_NNT", Family::Gemm);
    check(&f, &sm103, "nvjet_sm103_hsh_64x32_64x16", Family::Gemm);
    check(&f, &sm103, "nvjet_sm103_hsh_64x8_64x16_1x4_h_bz_NNT", Family::Gemv);
    check(&f, &sm103, "void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel", Family::Rng);
    check(&f, &sm103, "void at::native::reduce_kernel<(int)512", Family::Reduction);
    let cudalm = column("nvidia/nsys/cudalm_rtx2080ti_nsys2022.4.2_kernexecsum.csv", "Kernel Name");
    check(&f, &cudalm, "cudalm::<unnamed>::bf16_gemv_vec4_row_kernel", Family::Gemv);
    check(&f, &cudalm, "cudalm::<unnamed>::int4gemv_rowtile4_bf16_kernel", Family::Gemv);
    check(&f, &cudalm, "cudalm::kernels::<unnamed>::qwen35_partial_rope_kernel", Family::Rope);
    check(&f, &cudalm, "void cudalm::kernels::<unnamed>::qwen35_rmsnorm_zc_kernel", Family::Norm);
    check(&f, &cudalm, "cudalm::kernels::<unnamed>::deltanet_gated_rmsnorm_kernel", Family::Norm);
    check(&f, &cudalm, "cudalm::kernels::<unnamed>::qwen35_paged_attention_scores_kernel", Family::Attention);
    check(&f, &cudalm, "cudalm::kernels::<unnamed>::batch_paged_softmax_kernel", Family::Reduction);
    check(&f, &cudalm, "cudalm::kernels::<unnamed>::qwen35_silu_mul_kernel", Family::Elementwise);
    check(&f, &cudalm, "cudalm::kernels::<unnamed>::qwen35_add_kernel", Family::Other);
    let memops = column("nvidia/nsys/cudalm_rtx2080ti_nsys2022.4.2_gpumemtimesum.csv", "Operation");
    check(&f, &memops, "[CUDA memcpy HtoD]", Family::Memcpy);
    check(&f, &memops, "[CUDA memset]", Family::Memset);
}

#[test]
fn rocprofv3_runtime_blit_kernels_and_a_vector_norm() {
    let f = Families::builtin();
    let names = column("amd/rocprofv3/hpctrain-jacobi_kernel_stats.csv", "Name");
    check(&f, &names, "__amd_rocclr_copyBuffer", Family::Memcpy);
    check(&f, &names, "__amd_rocclr_fillBufferAligned", Family::Memset);
    // A vector 2-norm (a reduction written by hand), not a norm layer.
    check(&f, &names, "NormKernel1", Family::Other);
    check(&f, &names, "JacobiIterationKernel", Family::Other);
}

#[test]
fn ascend_kernel_details_by_name_then_op_type() {
    let f = Families::builtin();
    let names = column("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv", "Name");
    let types = column("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv", "Type");
    let mut counts = std::collections::BTreeMap::new();
    for (name, op_type) in names.iter().zip(&types) {
        *counts.entry(f.classify_op(OpKind::Kernel, name, Some(op_type))).or_insert(0) += 1;
    }
    // Expected from the file's `Type` counts (python csv + Counter): elementwise = Add 43,
    // BroadcastTo 5, Cast 75, Exp 1, FastGelu 2, Fill 1, Greater 25, GreaterEqual 2, Less 3,
    // Log 1, LogicalNot 4, LogicalOr 2, Mul 35, OnesLike 4, RealDiv 6, Reciprocal 1,
    // Square 28, Sub 4, Tril 1, ZerosLike 2, and the dropout ops by name
    // (DropOutDoMask 7, StatelessDropOutGenMask 7: names or types with "dropout", python
    // `Counter(x['Type'] for x in rows if 'dropout' in (x['Name'] + x['Type']).lower())`);
    // reduction = ReduceSumD 31, LpNormReduceV2 28, ScaledMaskedSoftmax 2, ArgMaxWithValue 1;
    // collective = hcom_* 19; GEMM = MatMul 9 + BatchMatMul 4; norm = LayerNormV3 5; memset =
    // MemSet 84; layout = Transpose 7; index = NonZero 25 + GatherV2 2 + Index 1; optimizer =
    // ApplyAdamW 28; the other 86 rows (StridedSliceD, LpNormUpdateV2, …) are other.
    let expected = [
        (Family::Gemm, 13),
        (Family::Norm, 5),
        (Family::Elementwise, 259),
        (Family::Layout, 7),
        (Family::Index, 28),
        (Family::Optimizer, 28),
        (Family::Reduction, 62),
        (Family::Memset, 84),
        (Family::Collective, 19),
        (Family::Other, 86),
    ];
    assert_eq!(counts, expected.into_iter().collect());
}

#[test]
fn names_the_design_lists_without_a_recorded_sample() {
    // The name prefixes the design brief lists (the rest of each name is illustrative); no
    // fixture here carries them.
    let f = Families::builtin();
    let cases = [
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", Family::Gemm),
        ("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1", Family::Gemm),
        ("void gemv2T_kernel_val<int, int, float, 128, 16, 4, 4, false>", Family::Gemv),
        ("void gemvx::kernel<int, int, float, false, true>", Family::Gemv),
        ("void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>", Family::Attention),
        ("fmha_cutlassF_f16_aligned_64x64_rf_sm80", Family::Attention),
        ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits>", Family::Attention),
        ("FlashAttentionScore", Family::Attention),
        ("MatMulV2", Family::Gemm),
        ("RmsNorm", Family::Norm),
        ("rotary_embedding_kernel", Family::Rope),
        ("moe_align_block_size_kernel", Family::MoeRouting),
        ("GroupedMatmul", Family::GroupedMatmul),
        // Dense block-scaled GEMMs are GEMMs; grouped ones are grouped (see the zoo names).
        ("cutlass3x_sm100_bstensorop_blockscaled_gemm", Family::Gemm),
        ("dynamic_per_token_scaled_fp8_quant_kernel", Family::Quantize),
        ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", Family::Collective),
        // NCCL's one-rank kernel as the H200 trace names it (tests/fixtures/nvidia/h200-nccl).
        (
            "__nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__b4148644_10_onerank_cu_fdf4799013oneRankReduceI13FuncPreMulSumIfEEEvPvS3_mmb",
            Family::Collective,
        ),
        ("Add", Family::Elementwise),
        ("Cast", Family::Elementwise),
        ("TransData", Family::Layout),
    ];
    assert_kernel_families(&f, &cases);
    assert_eq!(f.classify(OpKind::Memcpy, "Memcpy HtoD (Pageable -> Device)"), Family::Memcpy);
    assert_eq!(f.classify(OpKind::Communication, "anything"), Family::Collective);
}

#[test]
fn family_files_come_first_and_errors_name_the_line() {
    let text = "# my kernels\n\ngemm   my_tiled_kernel\nattention\t=Softmax_Fused\nother nvjet_sm90_special\n";
    let f = Families::parse(text, Path::new("fam.txt")).expect("parses");
    assert_eq!(f.len(), Families::builtin().len() + 3);
    assert_eq!(f.classify(OpKind::Kernel, "My_Tiled_Kernel_v2"), Family::Gemm);
    assert_eq!(f.classify(OpKind::Kernel, "softmax_fused"), Family::Attention);
    assert_eq!(f.classify(OpKind::Kernel, "softmax_fused_2"), Family::Reduction);
    assert_eq!(f.classify(OpKind::Kernel, "nvjet_sm90_special_64x8"), Family::Other);
    let error = Families::parse("gemm a\nConv-2d b\n", Path::new("fam.txt")).unwrap_err().to_string();
    assert!(error.starts_with("fam.txt:2: --families: `Conv-2d` is not a family name"), "{error}");
    let error = Families::parse("gemm\n", Path::new("fam.txt")).unwrap_err().to_string();
    assert_eq!(error, "fam.txt:1: --families: family `gemm` has no pattern after it");
    assert!(Families::from_file(Path::new("/nonexistent/families.txt")).is_err());
}

#[test]
fn a_family_file_may_add_a_family() {
    let text = "sparse_attn ~sparse_fwd\nsparse_attn block_sparse\nconv my_direct_kernel\n";
    let f = Families::parse(text, Path::new("fam.txt")).expect("parses");
    let family = f.classify(OpKind::Kernel, "sparse_fwd_kernel<128>");
    assert_eq!(family, Family::Custom("sparse_attn"));
    assert_eq!(f.classify(OpKind::Kernel, "block_sparse_gemm"), family, "one family for both rules");
    assert_eq!(family.as_str(), "sparse_attn");
    assert_eq!(serde_json::to_value(family).unwrap(), "sparse_attn");
    assert!(family.is_compute() && !family.is_matmul());
    // `conv` is a built-in family now: the rule maps onto it.
    assert_eq!(f.classify(OpKind::Kernel, "my_direct_kernel"), Family::Conv);
    assert_eq!(Family::from_name("sparse_attn"), None, "only built-ins resolve by name");
}

#[test]
fn convolutions_topk_grouped_and_block_scaled_names() {
    // Names from the H200 zoo (tests/fixtures/nvidia/h200-zoo) and the issue that filed them.
    let f = Families::builtin();
    let cases = [
        ("sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x32", Family::Conv),
        ("sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc", Family::Conv),
        ("void cudnn::cnn::dgrad_engine<float, 128, 6, 7, 3, 3, 5, false>", Family::Conv),
        ("void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 8, 3, 3, 5, false, 512>", Family::Conv),
        ("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>", Family::Conv),
        ("void fft2d_r2c_32x32<float, false, 0u, false>", Family::Conv),
        ("void cutlass__5x_cudnn::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_64x64_16x10_nhwc_align4>", Family::Conv),
        ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true>", Family::Layout),
        ("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>", Family::Reduction),
        ("void at::native::sbtopk::gatherTopK<float, unsigned int, 1, false>", Family::TopK),
        ("bmm_MxE4m3_MxE2m1E2m1_Fp32_t128x8x512u2_s6_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut", Family::GroupedMatmul),
        ("sm100_xmma_gemm_mxe4m3mxe4m3_bf16_tn_blockscaled", Family::Gemm),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)>", Family::Quantize),
        ("triton_poi_fused__unsafe_view_add_7", Family::Elementwise),
        ("triton_per_fused__fused_rms_norm_0", Family::Norm),
        ("triton_tem_fused_mm_0", Family::Gemm),
        ("topkGatingSoftmax", Family::MoeRouting),
    ];
    assert_kernel_families(&f, &cases);
}

#[test]
fn expert_parallel_all_to_all_is_communication() {
    // The six DeepEP kernels of a real MoE training step on H800s (deepseek-ai/profile-data
    // `train.json` @ 44960242, DeepSeek's build names its namespace `dpsk::ep`; 48.9 % of the
    // step's device time went to them), then names as DeepEP and a derivative spell them.
    let f = Families::builtin();
    let cases = [
        (
            "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*)",
            Family::Collective,
        ),
        ("void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*)", Family::Collective),
        ("void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*)", Family::Collective),
        ("void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int)", Family::Collective),
        (
            "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int)",
            Family::MoeRouting,
        ),
        ("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*)", Family::Collective),
        ("void deep_ep::internode_ll::combine<false, 7168>(void*, void*, int*, void const*)", Family::Collective),
        ("void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)", Family::Collective),
        ("void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*)", Family::MoeRouting),
        ("void nccl_ep::internode_ll::dispatch<true, false, 7168>(void const*, void*)", Family::Collective),
        // Not communication: a tree or graph kernel that only mentions nodes.
        ("void build_internal_nodes_kernel(int*, int)", Family::Other),
    ];
    assert_kernel_families(&f, &cases);
}

#[test]
fn cudnn_convolutions_and_the_small_kernels_around_them() {
    // Names from real traces: a ResNet-50 on a T4 (andrewlala/ResNet50 trace_gpu.json), the HTA
    // V100 ResNet and A100 AlexNet fixtures (tests/fixtures/nvidia/torch), PyTorch's optimizer
    // and concatenation kernels from the H200 zoo; then cuDNN's tensor-core conv spellings.
    let f = Families::builtin();
    let cases = [
        ("_5x_cudnn_volta_scudnn_128x32_relu_small_nn_v1", Family::Conv),
        ("cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", Family::Conv),
        ("cudnn_train_volta_scudnn_128x128_stridedB_splitK_medium_nn_v1", Family::Conv),
        ("cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", Family::Conv),
        ("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", Family::Conv),
        ("void cask_cudnn_infer::computeOffsetsKernel<false, false>(cask_cudnn_infer::ComputeOffsetsParams)", Family::Conv),
        ("cask_cudnn_infer::computeBOffsetsKernel(cask_cudnn_infer::ComputeBOffsetsParams)", Family::Conv),
        ("turing_h1688cudnn_256x128_ldg8_relu_exp_small_nhwc_tn_v1", Family::Conv),
        ("ampere_fp16_s16816cudnn_fp16_128x128_ldg8_relu_f2f_exp_small_nhwc_tn_v1", Family::Conv),
        ("volta_h884cudnn_256x64_ldg8_relu_exp_small_nhwc_tn_v1", Family::Conv),
        ("void at::native::(anonymous namespace)::adaptive_average_pool<float>(float const*, float*, int)", Family::Reduction),
        ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>>", Family::Optimizer),
        ("void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>", Family::Elementwise),
        ("void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous namespace)::OpaqueType<4>>", Family::Elementwise),
        ("void cudnn::ops::scalePackedTensor_kernel<float, float>(long, float*, float)", Family::Elementwise),
        // XLA fusions from the H200 JAX capture, cuDNN's attention backward from the zoo's training step.
        ("loop_multiply_fusion", Family::Elementwise),
        ("loop_multiply_fusion_1", Family::Elementwise),
        ("input_concatenate_fusion", Family::Elementwise),
        ("input_reduce_fusion", Family::Reduction),
        ("gemm_fusion_dot_general_2", Family::Gemm),
        ("void cudnn::fusion::compute_dot_do_o_specialized<true, 64>(void const*, void const*, float*)", Family::Attention),
        ("void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int)", Family::Attention),
        // Still: cuDNN's batch norm is a norm; its layout transform is layout (issue #50).
        ("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>", Family::Norm),
        ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true>", Family::Layout),
    ];
    assert_kernel_families(&f, &cases);
}

/// Issue #50: what used to land in `other` or `elementwise` has a family of its own, named by
/// each compiler's and library's own scheme. Names are real ones from the fixtures (H200 zoo,
/// kineto 8-rank traces, Ascend advisor samples) or the libraries' kernel names as they print.
#[test]
fn layout_index_rng_optimizer_and_compiler_names() {
    let f = Families::builtin();
    let cases = [
        ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)", Family::Layout),
        ("void cudnn::engines_precompiled::nhwcToNchwKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nhwc2nchw_params_t<float>, float const*, float*)", Family::Layout),
        ("batched_transpose_32x16_half", Family::Layout),
        ("loop_transpose_fusion", Family::Layout),
        ("transposeNaive(float *, const float *)", Family::Layout),
        ("Default/network-WithLossCell/_backbone-AlexNet/fc3-Dense/TransData-op501", Family::Layout),
        ("void at::native::bitonicSortKVInPlace<-2, -1, 16, 16, float, long, at::native::GTOp<float, true>, unsigned int>(at::cuda::detail::TensorInfo<float, unsigned int>)", Family::Index),
        ("void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int>(int*)", Family::Index),
        ("void rocprim::detail::radix_sort_block_sort_kernel<rocprim::default_config, false>(unsigned int*)", Family::Index),
        ("void at_cuda_detail::cub::detail::scan::DeviceScanKernel<at_cuda_detail::cub::detail::scan::policy_hub<float, float>::Policy900>(float*)", Family::Index),
        ("void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)", Family::Index),
        ("void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<2> > > >(long, at::native::gpu_index_kernel)", Family::Index),
        ("void at::native::(anonymous namespace)::write_indices<long>(long*, at::native::(anonymous namespace)::TensorDims<long>)", Family::Index),
        ("void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long*, float const*)", Family::Index),
        ("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, at::native::templates::cuda::uniform_and_transform<float, float, at::CUDAGeneratorImpl*> >(long, at::PhiloxCudaState)", Family::Rng),
        ("aclnnInplaceNormal_DSARandomNormal_DSARandomNormal", Family::Rng),
        ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*>(at::native::(anonymous namespace)::TensorListMetadata<4>)", Family::Optimizer),
        ("ApplyAdamW179", Family::Optimizer),
        // Elementwise kernels whose lambdas are no optimizer (`{lambda()#2}` once read as LAMB).
        ("void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, float, std::array<char*, 2ul>)", Family::Elementwise),
        ("triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0", Family::Norm),
        ("triton_red_fused_sum_1", Family::Reduction),
        ("triton_per_fused__softmax_3", Family::Reduction),
        ("nvfuser_reduction_f0_c1_r0_g0", Family::Reduction),
        ("nvfuser_pointwise_f0_c1_r0_g0", Family::Elementwise),
        ("im2col_kernel<float>", Family::Conv),
        ("Im3d2Col", Family::Conv),
        ("void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<float, 1, 1, long>, 16>, Eigen::TensorCwiseBinaryOp<Eigen::internal::scalar_sum_op<float, float> > > > >(Eigen::TensorEvaluator<>, long)", Family::Elementwise),
        ("void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<float, 1, 1, int>, 16>, Eigen::TensorReductionOp<Eigen::internal::SumReducer<float> > > > >(Eigen::TensorEvaluator<>, int)", Family::Reduction),
        ("void tensorflow::functor::FillPhiloxRandomKernelLaunch<tensorflow::random::UniformDistribution<tensorflow::random::PhiloxRandom, float> >(tensorflow::random::PhiloxRandom)", Family::Rng),
        // Top-k and collectives keep their families ahead of gather/scatter.
        ("void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float, unsigned int>)", Family::TopK),
        ("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", Family::Collective),
    ];
    assert_kernel_families(&f, &cases);
}
