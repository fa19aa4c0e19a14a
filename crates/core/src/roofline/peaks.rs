//! Each accelerator's published peaks: dense tensor-pipe FLOP/s per element type, the vector
//! FP32 rate and the DRAM bandwidth, each from the vendor's public datasheet (named on the
//! entry). Chosen by the device name the trace records; a device not listed has no peaks, so no
//! efficiency is claimed (never a guess). Sparse figures are halved to dense where a datasheet
//! prints only those.

use crate::DType;
use serde::Serialize;

/// One accelerator's peaks, TFLOP/s and TB/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Peaks {
    /// The accelerator, as this table names it.
    pub name: &'static str,
    /// Dense bf16 / fp16 tensor (matrix) FLOP/s, TFLOP/s.
    pub bf16: f64,
    /// Dense fp8 tensor FLOP/s (absent where the chip has no fp8 pipe).
    pub fp8: Option<f64>,
    /// Dense tf32 tensor FLOP/s (AMD: the xf32/tf32 matrix rate; absent where there is none).
    pub tf32: Option<f64>,
    /// FP32 FLOP/s without tensor cores (AMD: the FP32 matrix rate).
    pub fp32: f64,
    /// FP64 FLOP/s (the FP64 tensor/matrix rate where there is one).
    pub fp64: f64,
    /// Dense int8 tensor OP/s.
    pub int8: Option<f64>,
    /// DRAM (HBM/GDDR) bandwidth, TB/s.
    pub dram_tbps: f64,
    /// Where the numbers come from.
    pub source: &'static str,
}

impl Peaks {
    /// The peak FLOP/s (per second, not tera) of a matrix op on `dtype`; `tf32` when an fp32
    /// matrix op runs on the tensor pipe.
    pub fn matrix_flops(&self, dtype: DType, tf32: bool) -> Option<f64> {
        let tera = match dtype {
            DType::Bf16 | DType::F16 => Some(self.bf16),
            DType::F8E4M3 | DType::F8E5M2 => self.fp8,
            DType::F32 if tf32 => self.tf32,
            DType::F32 => Some(self.fp32),
            DType::F64 => Some(self.fp64),
            DType::I8 => self.int8,
            _ => None,
        };
        tera.map(|t| t * 1e12)
    }

    /// DRAM bandwidth, bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        self.dram_tbps * 1e12
    }
}

const H100_PAGE: &str = "https://www.nvidia.com/en-us/data-center/h100/ (datasheet; sparse tensor figures halved)";
const H200_PAGE: &str = "https://www.nvidia.com/en-us/data-center/h200/ (datasheet; sparse tensor figures halved)";
const A100_PAGE: &str = "https://www.nvidia.com/en-us/data-center/a100/ (datasheet, dense figures)";
const MI300_PAGE: &str = "https://www.amd.com/en/products/accelerators/instinct/mi300.html (specifications, dense)";
const MI200_PAGE: &str = "https://www.amd.com/en/products/accelerators/instinct/mi200.html (specifications)";

/// (name words that must all appear, lower case; the peaks), most specific first.
const TABLE: &[(&[&str], Peaks)] = &[
    (&["h100", "nvl"], nv("H100 NVL", 835.5, 1670.5, 417.5, 60.0, 60.0, 3.9, H100_PAGE)),
    (&["h100", "pcie"], nv("H100 PCIe", 756.5, 1513.0, 378.0, 51.0, 51.0, 2.0, H100_PAGE)),
    (&["h100"], nv("H100 SXM", 989.5, 1979.0, 494.5, 67.0, 67.0, 3.35, H100_PAGE)),
    (&["h200", "nvl"], nv("H200 NVL", 835.5, 1670.5, 417.5, 60.0, 60.0, 4.8, H200_PAGE)),
    (&["h200"], nv("H200 SXM", 989.5, 1979.0, 494.5, 67.0, 67.0, 4.8, H200_PAGE)),
    (
        &["b200"],
        nv(
            "B200",
            2250.0,
            4500.0,
            1125.0,
            75.0,
            37.0,
            8.0,
            "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200 8-GPU figures / 8; sparse halved)",
        ),
    ),
    (&["a100", "80gb", "pcie"], ampere("A100 80GB PCIe", 1.935)),
    (&["a100", "80gb"], ampere("A100 80GB SXM", 2.039)),
    (&["a100"], ampere("A100 40GB", 1.555)),
    (
        &["l40s"],
        Peaks {
            name: "L40S",
            bf16: 362.05,
            fp8: Some(733.0),
            tf32: Some(183.0),
            fp32: 91.6,
            fp64: 1.4,
            int8: Some(733.0),
            dram_tbps: 0.864,
            source: "https://www.nvidia.com/en-us/data-center/l40s/ (datasheet; sparse halved)",
        },
    ),
    (
        &["rtx 4090"],
        Peaks {
            name: "GeForce RTX 4090",
            bf16: 165.2,
            fp8: Some(330.3),
            tf32: Some(82.6),
            fp32: 82.6,
            fp64: 1.3,
            int8: Some(660.6),
            dram_tbps: 1.008,
            source: "NVIDIA Ada GPU architecture whitepaper, appendix A (FP32 accumulate, dense)",
        },
    ),
    (
        &["v100"],
        Peaks {
            name: "V100",
            bf16: 125.0,
            fp8: None,
            tf32: None,
            fp32: 15.7,
            fp64: 7.8,
            int8: None,
            dram_tbps: 0.9,
            source: "https://www.nvidia.com/en-us/data-center/v100/ (SXM2; fp16 tensor, no bf16 pipe)",
        },
    ),
    (&["mi325x"], amd("MI325X", 1307.4, Some(2614.9), Some(653.7), 163.4, 163.4, 6.0, MI300_PAGE)),
    (&["mi300x"], amd("MI300X", 1307.4, Some(2614.9), Some(653.7), 163.4, 163.4, 5.3, MI300_PAGE)),
    (&["mi250x"], amd("MI250X", 383.0, None, None, 95.7, 95.7, 3.2, MI200_PAGE)),
    (&["mi250"], amd("MI250", 362.1, None, None, 90.5, 90.5, 3.2, MI200_PAGE)),
    (&["mi210"], amd("MI210", 181.0, None, None, 45.3, 45.3, 1.6, MI200_PAGE)),
];

#[allow(clippy::too_many_arguments)]
const fn nv(
    name: &'static str,
    bf16: f64,
    fp8: f64,
    tf32: f64,
    fp32: f64,
    fp64: f64,
    dram_tbps: f64,
    source: &'static str,
) -> Peaks {
    Peaks { name, bf16, fp8: Some(fp8), tf32: Some(tf32), fp32, fp64, int8: Some(fp8), dram_tbps, source }
}

const fn ampere(name: &'static str, dram_tbps: f64) -> Peaks {
    Peaks {
        name,
        bf16: 312.0,
        fp8: None,
        tf32: Some(156.0),
        fp32: 19.5,
        fp64: 19.5,
        int8: Some(624.0),
        dram_tbps,
        source: A100_PAGE,
    }
}

#[allow(clippy::too_many_arguments)]
const fn amd(
    name: &'static str,
    bf16: f64,
    fp8: Option<f64>,
    tf32: Option<f64>,
    fp32: f64,
    fp64: f64,
    dram_tbps: f64,
    source: &'static str,
) -> Peaks {
    let int8 = match fp8 {
        Some(v) => Some(v),
        None => Some(bf16),
    };
    Peaks { name, bf16, fp8, tf32, fp32, fp64, int8, dram_tbps, source }
}

/// The peaks of the accelerator a trace names (`NVIDIA H100 80GB HBM3`, `AMD Instinct MI300X`,
/// `Tesla V100-DGXS-32GB`); `None` for one not listed.
pub fn peaks_of(device: &str) -> Option<Peaks> {
    let name = device.to_ascii_lowercase().replace(['-', '_'], " ");
    TABLE.iter().find(|(words, _)| words.iter().all(|w| name.contains(w))).map(|(_, peaks)| *peaks)
}

/// Every accelerator the table knows, for the README and `--json` consumers.
pub fn known() -> impl Iterator<Item = &'static Peaks> {
    TABLE.iter().map(|(_, p)| p)
}
