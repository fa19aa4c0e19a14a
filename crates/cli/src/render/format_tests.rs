use super::*;

#[test]
fn humanises_durations_and_cuts_names() {
    assert_eq!(human_ns(812.0), "812 ns");
    assert_eq!(human_ns(45_300.0), "45.3 µs");
    assert_eq!(human_ns(1_204_000.0), "1.20 ms");
    assert_eq!(human_ns(3.4e9), "3.40 s");
    assert_eq!(ellipsize("abcdef", 4), "abc…");
    assert_eq!(ellipsize("abc", 4), "abc");
}

#[test]
fn shortened_names_stay_distinct() {
    // Two elementwise kernels of the H200 zoo that differ only in their functor.
    let a = "void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul> >(int, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul>)";
    let b = "void at::native::vectorized_elementwise_kernel<4, at::native::pow_tensor_scalar_kernel_impl(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul> >(int, at::native::pow_tensor_scalar_kernel_impl(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul>)";
    assert_eq!(display_name(a), "vectorized_elementwise_kernel<4, rsqrt_kernel_cuda, array<char*, 2ul> >");
    let gemv = "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, float>(cublasGemvParamsEx<int>)";
    assert_eq!(display_name(gemv), "internal::gemvx::kernel<int, int, __nv_bfloat16, float>");
    assert_eq!(display_name("Memset (Device)"), "Memset (Device)");
    assert_eq!(display_name("divide_kernel(float*, float const*, int)"), "divide_kernel");
    let softmax = "void (anonymous namespace)::softmax_warp_forward<float, float, 5, false>(float*, float const*, int)";
    assert_eq!(display_name(softmax), "softmax_warp_forward<float, float, 5, false>");
    let short = shorten_distinct(&[a, b, "nvjet_sm90_tst_8x64"], 60);
    assert_ne!(short[0], short[1], "{short:?}");
    assert!(short[0].contains("rsqrt") && short[1].contains("pow_tensor"), "{short:?}");
    let same_head =
        shorten_distinct(&["kernel_with_a_long_common_head_A_tail", "kernel_with_a_long_common_head_B_tail"], 20);
    assert_ne!(same_head[0], same_head[1], "{same_head:?}");
    assert!(short.iter().all(|s| s.chars().count() <= 60), "{short:?}");
    assert_eq!(short[2], "nvjet_sm90_tst_8x64");
    // Two kernels whose short forms are one string (they differ only in a lambda's number,
    // which the short form drops: the H100 FlexAttention run's elementwise kernels).
    let lambda = |n: u32| {
        format!("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}} const&)::{{lambda(int)#1}}>(int, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}} const&)::{{lambda(int)#1}})")
    };
    let (c, d) = (lambda(2), lambda(3));
    assert_eq!(display_name(&c), display_name(&d));
    let apart = shorten_distinct(&[&c, &d], 34);
    assert_ne!(apart[0], apart[1], "{apart:?}");
    assert!(apart.iter().all(|s| s.chars().count() <= 34), "{apart:?}");
}
