//! The deep-dive suggestion: function names as ncu matches them, and when it is offered.

use crate::answer_view::{AnswerView, Origin};
use crate::deep_dive_target::{function_name, DeepDiveContext, WARM_LAUNCHES};
use prof_core::answer::{answer, Inputs};
use prof_core::{summarize_kernels, DeviceOp, Families, OpKind, Timeline};

fn view(t: &Timeline, dive: &DeepDiveContext, command: &[std::ffi::OsString]) -> AnswerView {
    let summary = summarize_kernels(t, &Families::builtin());
    let found = answer(&Inputs {
        timeline: Some(t),
        summary: &summary,
        diagnosis: None,
        gaps: None,
        launch: None,
        roofline: None,
    });
    AnswerView::new(found, &summary, dive, &Origin { command, path: None })
}

#[test]
fn the_suggestion_needs_a_deep_dive_and_skips_the_warm_up() {
    let mut t = Timeline::new("synthetic");
    let (big, small) = (t.intern("void ns::big_gemm<128>(float*)"), t.intern("small_kernel"));
    for i in 0..60 {
        t.push_op(DeviceOp::new(OpKind::Kernel, big, 0, 7, i * 200_000, 180_000));
        t.push_op(DeviceOp::new(OpKind::Kernel, small, 0, 7, i * 200_000 + 190_000, 10_000));
    }
    let before = prof_timeline::intern::FxHashMap::from_iter([(big, 7u64)]);
    let none = DeepDiveContext { available: false, launches_before: Some(&before) };
    let command = ["python3".into(), "run.py".into()];
    let unavailable = view(&t, &none, &command);
    assert_eq!(unavailable.deep_dive_command(), None, "no deep dive on this vendor");
    assert!(unavailable.next_line.starts_with("no single-kernel deep dive for this source's vendor"));
    let nvidia = DeepDiveContext { available: true, launches_before: Some(&before) };
    let found = view(&t, &nvidia, &command);
    let skip = 7 + WARM_LAUNCHES;
    let expected =
        format!("prof deep-dive --kernel '^big_gemm$' --launch-skip {skip} --launch-count 1 -- python3 run.py");
    assert_eq!(found.deep_dive_command(), Some(expected.clone()));
    assert_eq!(found.next_line, expected);
}

/// The same kernels with the device idle half the time between them: the answer is the idle
/// time, and no deep dive is offered beside it (however dominant the kernel).
#[test]
fn no_deep_dive_beside_an_idle_answer() {
    let mut t = Timeline::new("synthetic");
    let big = t.intern("void ns::big_gemm<128>(float*)");
    for i in 0..120 {
        t.push_op(DeviceOp::new(OpKind::Kernel, big, 0, 7, i * 400_000, 180_000));
    }
    let nvidia = DeepDiveContext { available: true, launches_before: None };
    let found = view(&t, &nvidia, &[]);
    // Wall 119 × 400 µs + 180 µs, busy 120 × 180 µs: idle 26.18 of 47.78 ms.
    assert_eq!(found.deep_dive_command(), None, "{}", found.answer.headline);
    assert!(found.answer.headline.starts_with("the device is idle 54.8 % of the window"), "{}", found.answer.headline);
    assert!(found.next_line.starts_with("apply the remedy"), "{}", found.next_line);
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
