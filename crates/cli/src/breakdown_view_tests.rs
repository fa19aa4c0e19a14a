//! The deep-dive suggestion: function names as ncu matches them, and when it is offered.

use crate::breakdown_view::{deep_dive_suggestion, function_name, DeepDiveContext, WARM_LAUNCHES};
use prof_core::{summarize_kernels, DeviceOp, Families, OpKind, Timeline};

#[test]
fn the_suggestion_needs_a_deep_dive_and_skips_the_warm_up() {
    let mut t = Timeline::new("synthetic");
    let (big, small) = (t.intern("void ns::big_gemm<128>(float*)"), t.intern("small_kernel"));
    for i in 0..10 {
        t.push_op(DeviceOp::new(OpKind::Kernel, big, 0, 7, i * 1_000, 900));
        t.push_op(DeviceOp::new(OpKind::Kernel, small, 0, 7, i * 1_000 + 950, 10));
    }
    let summary = summarize_kernels(&t, &Families::builtin());
    let before = prof_core::intern::FxHashMap::from_iter([(big, 7u64)]);
    let none = DeepDiveContext { available: false, launches_before: Some(&before) };
    assert_eq!(deep_dive_suggestion(&summary, &[], &none), None, "no deep dive on this vendor");
    let nvidia = DeepDiveContext { available: true, launches_before: Some(&before) };
    let next = deep_dive_suggestion(&summary, &["python3".into(), "run.py".into()], &nvidia).unwrap();
    let skip = 7 + WARM_LAUNCHES;
    assert_eq!(
        next,
        format!("prof deep-dive --kernel '^big_gemm$' --launch-skip {skip} --launch-count 1 -- python3 run.py")
    );
}

#[test]
fn function_names_as_ncu_matches_them() {
    // Names as the H200 zoo recorded them.
    let cases = [
        ("nvjet_sm90_tst_8x64_64x16_2x1_v_bz_TNN", "nvjet_sm90_tst_8x64_64x16_2x1_v_bz_TNN"),
        ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})", "elementwise_kernel"),
        ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, false, true, true, false, 7, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>)", "kernel"),
        ("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(cutlass_80_simt_sgemm_128x32_8x5_tn_align1::Params)", "Kernel2"),
        ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, false>(float*, float const*, int, int, int, bool const*, int, bool)", "softmax_warp_forward"),
    ];
    for (signature, name) in cases {
        assert_eq!(function_name(signature), name, "{signature}");
    }
}
