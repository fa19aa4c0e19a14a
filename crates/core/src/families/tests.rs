use super::*;

#[test]
fn pattern_kinds_and_tiles() {
    let word = Pattern::parse("~rope").unwrap();
    assert!(word.matches("qwen35_partial_rope_kernel", "qwen35_partial_rope_kernel"));
    assert!(word.matches("ApplyRopeCache", "applyropecache"));
    assert!(!word.matches("property_get", "property_get"));
    let seq = Pattern::parse("fp8*cast").unwrap();
    assert!(seq.matches("", "to_fp8_fast_cast"));
    assert!(!seq.matches("", "cast_to_fp8"));
    assert_eq!(Pattern::parse("="), None);
    assert_eq!(Pattern::parse("**"), None);
    assert!(skinny_tile("nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_NNT"));
    let rules = Families::builtin();
    for (name, family) in [
        ("fusion_128", Family::Reduction),
        ("fusion_5.kd", Family::Reduction),
        ("flashinfer::BatchDecodeWithPagedKVCacheKernel", Family::Attention),
        ("BatchPrefillWithRaggedKVCacheKernel", Family::Attention),
        ("flashinfer::SinglePrefillWithKVCacheKernel", Family::Attention),
        ("flashinfer::VariableLengthMergeStatesKernel", Family::Attention),
        ("fusion_5.kd.kd", Family::Other),
        ("loop_convert_fusion.kd", Family::Elementwise),
        ("input_reduce_fusion.kd", Family::Reduction),
        ("fusion.7", Family::Other),
        ("fusion", Family::Other),
        ("fusion_x", Family::Other),
        ("loop_add_fusion_1", Family::Elementwise),
    ] {
        assert_eq!(rules.classify(OpKind::Kernel, name), family, "{name}");
    }
    assert!(!skinny_tile("ampere_sgemm_32x32_sliced1x4_tn"));
    assert!(!skinny_tile("sm80_xmma_fprop_implicit_gemm_tilesize128x128x16_stage4"));
}
