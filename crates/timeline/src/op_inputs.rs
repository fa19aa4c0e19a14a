//! What a framework op was called with, where the source records it (PyTorch's
//! `record_shapes=True`: `Input Dims`, `Input type`, `Concrete Inputs`; Ascend's `Input Shapes`
//! and `Input Data Types`): enough for a performance model to work out the op's FLOPs and
//! bytes. Kept on each kernel the op launched, in its [`crate::OpDetails`].

use serde::Serialize;

/// An element type, as far as a performance model needs it (its size and the peak it runs at).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DType {
    /// 64-bit float.
    F64,
    /// 32-bit float.
    F32,
    /// bfloat16.
    Bf16,
    /// IEEE half.
    F16,
    /// 8-bit float, e4m3 (and its `fnuz` variant).
    #[serde(rename = "f8e4m3")]
    F8E4M3,
    /// 8-bit float, e5m2 (and its `fnuz` variant).
    #[serde(rename = "f8e5m2")]
    F8E5M2,
    /// 64-bit integer.
    I64,
    /// 32-bit integer.
    I32,
    /// 16-bit integer.
    I16,
    /// 8-bit integer (signed or not).
    I8,
    /// Boolean.
    Bool,
}

impl DType {
    /// Its name in reports, as in JSON (`bf16`, `f8e4m3`).
    pub fn label(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::Bf16 => "bf16",
            DType::F16 => "f16",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
            DType::I64 => "i64",
            DType::I32 => "i32",
            DType::I16 => "i16",
            DType::I8 => "i8",
            DType::Bool => "bool",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::Bf16 | DType::F16 | DType::I16 => 2,
            DType::F8E4M3 | DType::F8E5M2 | DType::I8 | DType::Bool => 1,
        }
    }

    /// The type PyTorch's trace names (`c10::BFloat16`, `float`, `c10::Half`, `long int`,
    /// `c10::Float8_e4m3fn`), `None` for a scalar, an empty slot or a type not listed.
    pub fn of_torch(name: &str) -> Option<Self> {
        let name = name.strip_prefix("c10::").unwrap_or(name);
        Some(match name {
            "double" => DType::F64,
            "float" => DType::F32,
            "BFloat16" => DType::Bf16,
            "Half" => DType::F16,
            "Float8_e4m3fn" | "Float8_e4m3fnuz" => DType::F8E4M3,
            "Float8_e5m2" | "Float8_e5m2fnuz" => DType::F8E5M2,
            "long int" | "long" | "int64_t" => DType::I64,
            "int" | "unsigned int" => DType::I32,
            "short int" | "short" => DType::I16,
            "signed char" | "unsigned char" | "char" => DType::I8,
            "bool" => DType::Bool,
            _ => return None,
        })
    }

    /// The type Ascend's tables name (`DT_BF16`, `FLOAT16`, `FLOAT`, `INT8`, `DT_INT64`).
    pub fn of_ascend(name: &str) -> Option<Self> {
        let name = name.trim().strip_prefix("DT_").unwrap_or(name.trim());
        Some(match name.to_ascii_uppercase().as_str() {
            "DOUBLE" | "FLOAT64" => DType::F64,
            "FLOAT" | "FLOAT32" => DType::F32,
            "BF16" | "BFLOAT16" => DType::Bf16,
            "FLOAT16" | "FP16" => DType::F16,
            "INT64" | "UINT64" => DType::I64,
            "INT32" | "UINT32" => DType::I32,
            "INT16" | "UINT16" => DType::I16,
            "INT8" | "UINT8" => DType::I8,
            "BOOL" => DType::Bool,
            _ => return None,
        })
    }
}

/// One framework op's call: its name, each input's dimensions, element type and scalar value,
/// index-aligned as the source lists them, and how many kernels this call launched (its FLOPs
/// and bytes are shared among them, so summing over kernels counts each call once).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpInputs {
    /// The op (`aten::addmm`, `aten::_flash_attention_forward`, `MatMulV2`).
    pub op: String,
    /// Each input's dimensions; empty for a scalar or an empty slot.
    pub dims: Vec<Vec<u64>>,
    /// Each input's element type, where it is a tensor of a type listed.
    pub dtypes: Vec<Option<DType>>,
    /// Each input's value as text where the source gives one (`"1"`, `"[1, 1]"`, `"False"`),
    /// else empty.
    pub scalars: Vec<String>,
    /// Kernels this call launched (at least 1).
    pub kernels: u32,
}

impl OpInputs {
    /// The dimensions of input `i` (empty when absent).
    pub fn dim(&self, i: usize) -> &[u64] {
        self.dims.get(i).map_or(&[], Vec::as_slice)
    }

    /// The element type of input `i`.
    pub fn dtype(&self, i: usize) -> Option<DType> {
        self.dtypes.get(i).copied().flatten()
    }

    /// The value of input `i` as text (empty when absent).
    pub fn scalar(&self, i: usize) -> &str {
        self.scalars.get(i).map_or("", String::as_str)
    }
}
