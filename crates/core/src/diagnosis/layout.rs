//! **Layout transposes** (opportunity): layout-family kernels (cuDNN's `nchwToNhwc` /
//! `nhwcToNchw`, MIOpen's batched transposes, Ascend `TransData`) take at least
//! [`LAYOUT_MIN_SHARE_PCT`] % of compute time and of all device time (a run that is mostly
//! communication is not about its transposes) in a run that has convolutions. The model holds
//! its activations in NCHW while the convolution kernels (tensor-core implicit GEMMs) want NHWC,
//! so the library converts each convolution's input and output, and back: on the H200 zoo's
//! ResNet-18 training step 17.8 % of device time, AlexNet inference 16.6 %, next to 38 % and
//! 45 % of convolutions. The transposes are charged to the convolutions (the evidence gives
//! the two together); the remedy is channels-last activations.

use super::{finding, Diagnosis, DiagnosisKind, Mix};
use crate::deepdive::Severity;
use crate::families::Family;

/// Least layout share of compute time, percent, for the finding.
pub(crate) const LAYOUT_MIN_SHARE_PCT: f64 = 5.0;

/// The finding, when layout transforms around convolutions take a real share.
/// `device_ns`: all device time, copies and communication included.
pub(super) fn layout_transposes(mix: &Mix, device_ns: u64) -> Option<Diagnosis> {
    let (layout, conv) = (mix.ns(Family::Layout), mix.ns(Family::Conv));
    let of_device = layout as f64 * 100.0 / device_ns.max(1) as f64;
    if conv == 0 || mix.share(layout) < LAYOUT_MIN_SHARE_PCT || of_device < LAYOUT_MIN_SHARE_PCT {
        return None;
    }
    let per_conv = mix.calls(Family::Layout) as f64 / mix.calls(Family::Conv).max(1) as f64;
    let evidence = vec![
        mix.describe(Family::Layout),
        mix.describe(Family::Conv),
        format!(
            "{per_conv:.1} layout transforms per convolution launch; convolutions with their transforms: {:.1} % of \
             compute time",
            mix.share(layout + conv)
        ),
    ];
    let headline = "layout transposes around the convolutions: activations are NCHW and each convolution's \
                    tensors are converted to NHWC and back; keep them channels-last (PyTorch: \
                    model.to(memory_format=torch.channels_last) and the input too; JAX/Flax: NHWC inputs)"
        .to_owned();
    finding(DiagnosisKind::LayoutTransposes, Severity::Opportunity, headline, evidence).map(|d| d.about(layout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::intern::FxHashMap;

    fn mix(rows: &[(Family, u64, u64)]) -> Mix {
        let by_family: FxHashMap<Family, (u64, u64)> = rows.iter().map(|&(f, ns, calls)| (f, (ns, calls))).collect();
        Mix { compute_ns: rows.iter().map(|r| r.1).sum(), by_family }
    }

    #[test]
    fn transposes_beside_convolutions_fire_and_alone_do_not() {
        // ResNet-18 training on the H200 (zoo resnet-train): conv 38.99 ms in 1190 launches,
        // layout 18.05 ms in 1008, the rest 44.4 ms.
        let nchw = mix(&[
            (Family::Conv, 38_990_000, 1190),
            (Family::Layout, 18_050_000, 1008),
            (Family::Norm, 44_400_000, 560),
        ]);
        let found = layout_transposes(&nchw, nchw.compute_ns).expect("fires");
        assert_eq!(found.device_ns, Some(18_050_000));
        assert!(found.evidence[2].starts_with("0.8 layout transforms per convolution launch"), "{:?}", found.evidence);
        assert!(found.headline.contains("channels_last"));
        // channels_last: a few transforms at the input only.
        let cl =
            mix(&[(Family::Conv, 38_990_000, 1190), (Family::Layout, 900_000, 14), (Family::Norm, 44_400_000, 560)]);
        assert!(layout_transposes(&cl, cl.compute_ns).is_none());
        // Transposes with no convolution (a transformer's attention reshapes) are not this.
        let no_conv = mix(&[(Family::Gemm, 50_000_000, 100), (Family::Layout, 20_000_000, 100)]);
        assert!(layout_transposes(&no_conv, no_conv.compute_ns).is_none());
        // A run that is mostly communication (MindInsight's 2-device AlexNet: layout 0.4 % of
        // device time, 10 % of its little compute) is not about its transposes.
        let comm = mix(&[(Family::Conv, 1_400_000, 35), (Family::Layout, 400_000, 16), (Family::Other, 2_200_000, 75)]);
        assert!(layout_transposes(&comm, 100_000_000).is_none());
    }
}
