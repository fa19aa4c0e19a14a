//! Kernel families: which kind of work a kernel does, judged from its name.
//!
//! Kernel names are architecture- and library-specific (`sm90_xmma_gemm_…`, `nvjet_…`,
//! `ampere_sgemm_…`, rocBLAS/Tensile `Cijk_…`, Ascend op types such as `MatMulV2`), so a
//! family is recognised by a rule table of case-insensitive patterns, evaluated in order;
//! the first match wins. Users put their own rules in front of the built-ins with a file
//! (`--families FILE`) in this format, one rule a line:
//!
//! ```text
//! # comment lines start with '#'; blank lines are ignored
//! <family>  <pattern>            (family and pattern separated by spaces or a tab)
//! gemm      my_tiled_matmul
//! attention =MyFusedAttn         (whole name, case-insensitive)
//! rope      ~rope                (a word: starts the name, follows a non-alphanumeric, or a camelCase hump)
//! quantize  fp8*cast             (the parts in this order)
//! ```
//!
//! A pattern is everything after the family up to the end of the line (there are no inline
//! comments: kernel names contain `#`, as in `{lambda()#1}`). Families are the names of
//! [`Family`] in snake_case (`gemv`, `gemm`, `conv`, `attention`, `norm`, `rope`,
//! `moe_routing`, `topk`, `grouped_matmul`, `quantize`, `elementwise`, `layout`, `index`, `rng`,
//! `optimizer`, `reduction`, `memcpy`, `memset`, `collective`, `other`), or a new family's name (lower-case letters, digits, `_`):
//! `sparse_attn  ~sparse_fwd` reports those kernels as `sparse_attn`.
//!
//! Decisions the built-in table makes:
//! - memcpy, memset and communication ops are classified by their [`OpKind`] (after the
//!   user's rules); runtime copy/fill kernels (`__amd_rocclr_copyBuffer`, Ascend `MemSet`)
//!   by name; communication kernels also by name: NCCL/RCCL/HCCL collectives and the
//!   expert-parallel all-to-all kernels of DeepEP and its derivatives (their `internode` /
//!   `intranode` namespaces), whose layout kernel is MoE routing.
//! - softmax and pooling are **reductions** (a row max and a row sum, a window max); top-k is
//!   its own family (`topk`), since sampling and MoE routing both run it.
//! - convolutions are **conv**, also when the kernel is an implicit GEMM (`fprop`, `dgrad`,
//!   `wgrad`, cuDNN engines, Winograd, FFT); cuDNN's layout transforms (`nchwToNhwc`) are
//!   **layout**, which the layout rule charges to the convolutions around them.
//! - sort, scan, gather, scatter and index kernels are **index**, after top-k (`gatherTopK`
//!   is top-k) and after the scatter-adds of an expert loop are counted (by name, in
//!   `diagnosis::shape`); RNG kernels are **rng**; foreach/fused optimizer steps are
//!   **optimizer**; what a compiler generated is named by its own scheme (the README's table).
//! - a block-scaled (MX, NVFP4) matmul is a GEMM unless it is grouped or batched over experts
//!   (`bmm_MxE4m3…`, CUTLASS `GroupProblemShape`): those are grouped matmuls.
//! - a built-in GEMM match whose name carries a CTA tile (`64x8` in
//!   `nvjet_sm90_tst_64x8_64x16_…`) with a side of at most [`SKINNY_TILE_MAX`] is a
//!   **GEMV**: a tile that thin only fits a matrix-vector (decode-shaped) product.
//! - a plain vector norm (`NormKernel1`) is not a norm layer: norm rules name the layer
//!   (`rms_norm`, `layer_norm`, `bn_fw`…).

use prof_timeline::error::{Error, Result};
use prof_timeline::timeline::OpKind;
use serde::Serialize;
use std::path::Path;
use table::{xla_custom_fusion, ASCEND_ELEMENTWISE, BUILTIN};

mod pattern;
mod table;

use pattern::Pattern;

/// A GEMM whose CTA tile has a side at most this long is matrix-vector shaped (GEMV).
pub(crate) const SKINNY_TILE_MAX: u32 = 16;

/// The kind of work a kernel does.
///
/// The built-in families are the named variants; a family file may add its own
/// ([`Family::Custom`], named in snake_case), which reports and JSON carry by name like the
/// others and which every rule counts as compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Matrix-vector products (decode-shaped matmuls).
    Gemv,
    /// Matrix-matrix products, dense block-scaled (MX, NVFP4) matmuls included.
    Gemm,
    /// Convolutions: cuDNN/MIOpen implicit-GEMM, Winograd, FFT and direct kernels, forward
    /// (`fprop`) and backward (`dgrad`, `wgrad`).
    Conv,
    /// Fused attention (flash, fmha, SDPA, FlashAttentionScore).
    Attention,
    /// Normalisation layers (RMS, layer, group, batch norm).
    Norm,
    /// Rotary position embedding.
    Rope,
    /// MoE routing kernels named as such (router, gating, moe_align…).
    MoeRouting,
    /// Top-k selection (`gatherTopK`, `topk`): sampling or MoE routing; the MoE rules tell
    /// which from the run's structure.
    TopK,
    /// Grouped (MoE expert) matmuls, batched block-scaled expert GEMMs included.
    GroupedMatmul,
    /// Quantize / dequantize and low-bit casts.
    Quantize,
    /// Elementwise kernels and activations.
    Elementwise,
    /// Layout transforms: cuDNN's `nchwToNhwc`/`nhwcToNchw` around convolutions of an NCHW
    /// model, MIOpen's batched transposes, XLA transpose fusions, Ascend `TransData`.
    Layout,
    /// Index work: sort, scan (cumsum), gather, scatter, index/index_select, embedding
    /// lookups, unique, nonzero.
    Index,
    /// Random number generation (`distribution_*`, Philox, `randperm`, Ascend `DSARandom*`).
    Rng,
    /// Optimizer steps (PyTorch's `multi_tensor_apply` foreach/fused steps, Adam, SGD, LAMB;
    /// Ascend `ApplyAdamW`).
    Optimizer,
    /// Reductions, softmax and pooling included.
    Reduction,
    /// Memory copies.
    Memcpy,
    /// Memory sets.
    Memset,
    /// Collective and point-to-point communication.
    Collective,
    /// Anything no rule matched.
    Other,
    /// A family a family file added (its snake_case name).
    Custom(&'static str),
}

impl Serialize for Family {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A family is its name: a built-in one, or one a `--families` file added.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Family {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Family".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let built_in: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
        schemars::json_schema!({
            "type": "string",
            "description": format!("a kernel family: one of {} or a name a --families file added", built_in.join(", ")),
        })
    }
}

impl Family {
    /// Every built-in family, in report order.
    pub const ALL: [Family; 20] = [
        Family::Gemv,
        Family::Gemm,
        Family::Conv,
        Family::Attention,
        Family::Norm,
        Family::Rope,
        Family::MoeRouting,
        Family::TopK,
        Family::GroupedMatmul,
        Family::Quantize,
        Family::Elementwise,
        Family::Layout,
        Family::Index,
        Family::Rng,
        Family::Optimizer,
        Family::Reduction,
        Family::Memcpy,
        Family::Memset,
        Family::Collective,
        Family::Other,
    ];

    /// The snake_case name used in family files and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Gemv => "gemv",
            Family::Gemm => "gemm",
            Family::Conv => "conv",
            Family::Attention => "attention",
            Family::Norm => "norm",
            Family::Rope => "rope",
            Family::MoeRouting => "moe_routing",
            Family::TopK => "topk",
            Family::GroupedMatmul => "grouped_matmul",
            Family::Quantize => "quantize",
            Family::Elementwise => "elementwise",
            Family::Layout => "layout",
            Family::Index => "index",
            Family::Rng => "rng",
            Family::Optimizer => "optimizer",
            Family::Reduction => "reduction",
            Family::Memcpy => "memcpy",
            Family::Memset => "memset",
            Family::Collective => "collective",
            Family::Other => "other",
            Family::Custom(name) => name,
        }
    }

    /// The built-in family called `name` (as [`Family::as_str`] spells it, any case).
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str().eq_ignore_ascii_case(name))
    }

    /// True for the matmul families (GEMV, GEMM, grouped/block-scaled).
    pub fn is_matmul(self) -> bool {
        matches!(self, Family::Gemv | Family::Gemm | Family::GroupedMatmul)
    }

    /// True for compute work, i.e. not a copy, a set or communication.
    pub fn is_compute(self) -> bool {
        !matches!(self, Family::Memcpy | Family::Memset | Family::Collective)
    }
}

/// True when the first `<M>x<N>` token of `name` (tokens split at non-alphanumerics) has a
/// side of at most [`SKINNY_TILE_MAX`].
fn skinny_tile(name: &str) -> bool {
    let tile = name.split(|c: char| !c.is_ascii_alphanumeric()).find_map(|token| {
        let (m, n) = token.split_once('x')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        (digits(m) && digits(n)).then(|| (m.parse::<u32>().ok(), n.parse::<u32>().ok()))
    });
    matches!(tile, Some((Some(m), Some(n))) if m.min(n) <= SKINNY_TILE_MAX)
}

/// A family a family file adds: its name kept for the process's life (a family file names a
/// handful), each name stored once.
fn custom_family(name: &str, added: &mut Vec<&'static str>) -> Option<Family> {
    let valid = name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && name.bytes().next().is_some_and(|b| b.is_ascii_lowercase());
    if !valid {
        return None;
    }
    if let Some(known) = added.iter().find(|known| **known == name) {
        return Some(Family::Custom(known));
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    added.push(leaked);
    Some(Family::Custom(leaked))
}

#[derive(Debug, Clone)]
struct Rule {
    family: Family,
    pattern: Pattern,
    builtin: bool,
}

/// An ordered rule table: the user's rules first, then the built-ins.
#[derive(Debug, Clone)]
pub struct Families {
    rules: Vec<Rule>,
}

impl Default for Families {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Families {
    /// The built-in table alone.
    pub fn builtin() -> Self {
        let named = BUILTIN.iter().map(|&(family, spec)| (family, Pattern::parse(spec)));
        let ascend =
            ASCEND_ELEMENTWISE.iter().map(|t| (Family::Elementwise, Some(Pattern::Exact(t.to_ascii_lowercase()))));
        let rules = named
            .chain(ascend)
            .filter_map(|(family, pattern)| Some(Rule { family, pattern: pattern?, builtin: true }))
            .collect();
        Self { rules }
    }

    /// The user's rules in `text` (read from `source`, named in errors), then the built-ins.
    pub fn parse(text: &str, source: &Path) -> Result<Self> {
        let mut rules = Vec::new();
        let mut added: Vec<&'static str> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (family_name, spec) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let family = match Family::from_name(family_name) {
                Some(family) => family,
                None => custom_family(family_name, &mut added).ok_or_else(|| {
                    let reason = format!(
                        "--families: `{family_name}` is not a family name: a new family is named in lower-case \
                         letters, digits and `_` (built-ins: {})",
                        Family::ALL.map(|f| f.as_str()).join(", ")
                    );
                    Error::artifact(source, index + 1, reason)
                })?,
            };
            let pattern = Pattern::parse(spec).ok_or_else(|| {
                Error::artifact(
                    source,
                    index + 1,
                    format!("--families: family `{family_name}` has no pattern after it"),
                )
            })?;
            rules.push(Rule { family, pattern, builtin: false });
        }
        rules.extend(Self::builtin().rules);
        Ok(Self { rules })
    }

    /// Reads a family file (see the module docs) and puts its rules before the built-ins.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::artifact(path, 0, format!("--families: cannot read the family file ({e}); give a readable file"))
        })?;
        Self::parse(&text, path)
    }

    /// Number of rules, the user's and the built-ins.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when the table has no rule (never, since the built-ins are always there).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The family of an op of `kind` called `name`.
    pub fn classify(&self, kind: OpKind, name: &str) -> Family {
        let lower = name.to_ascii_lowercase();
        let user = self.rules.iter().take_while(|r| !r.builtin);
        if let Some(rule) = user.into_iter().find(|r| r.pattern.matches(name, &lower)) {
            return rule.family;
        }
        match kind {
            OpKind::Memcpy => return Family::Memcpy,
            OpKind::Memset => return Family::Memset,
            OpKind::Communication => return Family::Collective,
            OpKind::Kernel | OpKind::Other => {}
        }
        let builtin = self.rules.iter().skip_while(|r| !r.builtin);
        match builtin.into_iter().find(|r| r.pattern.matches(name, &lower)).map(|r| r.family) {
            Some(Family::Gemm) if skinny_tile(name) => Family::Gemv,
            Some(family) => family,
            None if xla_custom_fusion(&lower) => Family::Reduction,
            None => Family::Other,
        }
    }

    /// The family of an op by its name, falling back to its framework op type (Ascend's
    /// `Type`, e.g. `Add` for the op `Add163`) when the name matches no rule.
    pub fn classify_op(&self, kind: OpKind, name: &str, op_type: Option<&str>) -> Family {
        match (self.classify(kind, name), op_type) {
            (Family::Other, Some(op_type)) => self.classify(kind, op_type),
            (family, _) => family,
        }
    }
}

#[cfg(test)]
mod tests;
