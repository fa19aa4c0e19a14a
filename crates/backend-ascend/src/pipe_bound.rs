//! Compute- or memory-bound, per AI Core op, from the pipe ratio columns of an op table.
//!
//! What the ratios are (Huawei's PipeUtilization and ArithmeticUtilization metric docs): each
//! `aic_*_ratio` / `aiv_*_ratio` is the share of the task's cube (aic) or vector (aiv) core
//! cycles spent in one pipe. The compute pipes are the cube MAC (`aic_mac_ratio`, or the sum of
//! `aic_mac_fp16_ratio` + `aic_mac_int8_ratio` in ArithmeticUtilization exports) and the vector
//! unit (`aiv_vec_ratio`, or the sum of the `aiv_vec_<type>_ratio` columns); the memory pipes
//! are MTE1 (L1→L0A/L0B), MTE2 (GM→AI Core), MTE3 (UB→GM) and FixPipe (L0C→GM/L1); scalar is
//! control and address work.
//!
//! The rule (the issue's, from Ascend tuning practice): a compute share of at least
//! [`COMPUTE_BOUND_PCT`] % (70–90 % is a well-fed prefill op) is compute-bound; below it the
//! busiest pipe names the limiter: a memory pipe → memory-bound, scalar → scalar-bound; an
//! export without memory pipe columns (ArithmeticUtilization) can only say "below 70 %".
//! Which core's pipes count follows the task type: AI_CORE the cube's, AI_VECTOR_CORE the
//! vector's, MIX_AIC / MIX_AIV both. Ratios of a group of tasks are duration-weighted means.

use serde::Serialize;

/// Compute-pipe share, percent, from which an op is compute-bound.
pub const COMPUTE_BOUND_PCT: f64 = 70.0;

/// The core a pipe belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Cube (aic) core.
    Cube,
    /// Vector (aiv) core.
    Vector,
}

/// What a pipe does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PipeKind {
    /// Matrix or vector arithmetic.
    Compute,
    /// Data movement between memory levels.
    Memory,
    /// Scalar (control, address) instructions.
    Scalar,
}

/// One pipe: its label, core, kind and the columns it is read from.
#[derive(Debug, Clone, Copy)]
pub struct Pipe {
    /// Label in reports.
    pub label: &'static str,
    /// Core it belongs to.
    pub side: Side,
    /// What it does.
    pub kind: PipeKind,
    /// One column holding the ratio, first found wins.
    pub columns: &'static [&'static str],
    /// Else the sum of these columns (ArithmeticUtilization's per-type ratios).
    pub summed: &'static [&'static str],
}

/// Every pipe prof reads, cube first.
pub const PIPES: &[Pipe] = &[
    Pipe {
        label: "cube MAC",
        side: Side::Cube,
        kind: PipeKind::Compute,
        columns: &["aic_mac_ratio", "aic_cube_ratio"],
        summed: &["aic_mac_fp16_ratio", "aic_mac_int8_ratio"],
    },
    Pipe {
        label: "cube scalar",
        side: Side::Cube,
        kind: PipeKind::Scalar,
        columns: &["aic_scalar_ratio"],
        summed: &[],
    },
    Pipe {
        label: "MTE1 (L1→L0 loads)",
        side: Side::Cube,
        kind: PipeKind::Memory,
        columns: &["aic_mte1_ratio"],
        summed: &[],
    },
    Pipe {
        label: "MTE2 (GM→AI Core loads)",
        side: Side::Cube,
        kind: PipeKind::Memory,
        columns: &["aic_mte2_ratio"],
        summed: &[],
    },
    Pipe {
        label: "FixPipe (L0C→GM writes)",
        side: Side::Cube,
        kind: PipeKind::Memory,
        columns: &["aic_fixpipe_ratio"],
        summed: &[],
    },
    Pipe {
        label: "vector",
        side: Side::Vector,
        kind: PipeKind::Compute,
        columns: &["aiv_vec_ratio"],
        summed: &["aiv_vec_fp32_ratio", "aiv_vec_fp16_ratio", "aiv_vec_int32_ratio", "aiv_vec_misc_ratio"],
    },
    Pipe {
        label: "vector scalar",
        side: Side::Vector,
        kind: PipeKind::Scalar,
        columns: &["aiv_scalar_ratio"],
        summed: &[],
    },
    Pipe {
        label: "MTE2 (GM→UB loads)",
        side: Side::Vector,
        kind: PipeKind::Memory,
        columns: &["aiv_mte2_ratio"],
        summed: &[],
    },
    Pipe {
        label: "MTE3 (UB→GM stores)",
        side: Side::Vector,
        kind: PipeKind::Memory,
        columns: &["aiv_mte3_ratio"],
        summed: &[],
    },
];

/// The sides whose pipes count for a task type; empty for tasks off the AI Core (AI_CPU,
/// DSA_SQE, HCCL).
pub fn sides(task_type: &str) -> &'static [Side] {
    match task_type {
        "AI_CORE" => &[Side::Cube],
        "AI_VECTOR_CORE" => &[Side::Vector],
        "MIX_AIC" | "MIX_AIV" => &[Side::Cube, Side::Vector],
        _ => &[],
    }
}

/// The verdict on one op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Compute share at least [`COMPUTE_BOUND_PCT`].
    Compute,
    /// Below it, with a memory pipe the busiest.
    Memory,
    /// Below it, with a scalar pipe the busiest.
    Scalar,
    /// Below it, and the export has no memory or scalar pipe columns to say why.
    BelowCompute,
    /// No pipe ratio for this op (not an AI Core task, or the columns are absent or N/A).
    Unknown,
}

impl Bound {
    /// The verdict in words.
    pub fn describe(self) -> &'static str {
        match self {
            Bound::Compute => "compute-bound",
            Bound::Memory => "memory-bound",
            Bound::Scalar => "scalar-bound",
            Bound::BelowCompute => "below 70 % compute (no memory pipe columns)",
            Bound::Unknown => "unknown",
        }
    }
}

/// A duration-weighted mean of values, summed exactly: each value in units of 10^-9, each
/// product with its weight an integer, summed in 128 bits, so the mean is the same whatever
/// order the tasks come in and however many parts a table is read in (with `f64` sums the
/// last digits changed with the machine's cores).
#[derive(Debug, Clone, Copy, Default)]
pub struct WeightedMean {
    weighted: i128,
    weight: u128,
}

impl WeightedMean {
    /// Adds `value` with the task's duration (at least 1 ns) as its weight.
    #[inline]
    pub fn add(&mut self, value: f64, dur_ns: u64) {
        let w = dur_ns.max(1);
        self.weighted = self.weighted.saturating_add(((value * 1e9).round() as i128).saturating_mul(i128::from(w)));
        self.weight += u128::from(w);
    }

    /// Adds what `later` summed.
    pub fn absorb(&mut self, later: &WeightedMean) {
        self.weighted = self.weighted.saturating_add(later.weighted);
        self.weight += later.weight;
    }

    /// The mean, if anything was added.
    pub fn mean(&self) -> Option<f64> {
        (self.weight > 0).then(|| self.weighted as f64 / 1e9 / self.weight as f64)
    }
}

/// Duration-weighted pipe ratios of a group of tasks, one slot per [`PIPES`] entry.
#[derive(Debug, Clone, Default)]
pub struct PipeMeans {
    slots: [WeightedMean; PIPES.len()],
}

impl PipeMeans {
    /// Adds one task's ratios (`None` where the row has none) with its duration as weight.
    pub fn add(&mut self, ratios: &[Option<f64>; PIPES.len()], dur_ns: u64) {
        for (slot, ratio) in ratios.iter().enumerate() {
            if let Some(ratio) = ratio {
                self.slots[slot].add(*ratio, dur_ns);
            }
        }
    }

    /// Adds the tasks `later` summed (a later part of the same table).
    pub fn absorb(&mut self, later: &PipeMeans) {
        for (mine, theirs) in self.slots.iter_mut().zip(&later.slots) {
            mine.absorb(theirs);
        }
    }

    /// The mean share of pipe `slot`, percent.
    pub fn pct(&self, slot: usize) -> Option<f64> {
        self.slots[slot].mean().map(|mean| mean * 100.0)
    }

    /// The verdict for the given sides: the highest compute share, then the busiest pipe.
    pub fn verdict(&self, sides: &[Side]) -> (Bound, Option<f64>, Option<(&'static str, f64)>) {
        let shares: Vec<(&Pipe, f64)> = PIPES
            .iter()
            .enumerate()
            .filter(|(_, pipe)| sides.contains(&pipe.side))
            .filter_map(|(slot, pipe)| Some((pipe, self.pct(slot)?)))
            .collect();
        let compute = shares.iter().filter(|(p, _)| p.kind == PipeKind::Compute).map(|(_, s)| *s).reduce(f64::max);
        let busiest = shares.iter().copied().reduce(|a, b| if b.1 > a.1 { b } else { a });
        let Some(compute_pct) = compute else {
            return (Bound::Unknown, None, busiest.map(|(p, s)| (p.label, s)));
        };
        let bound = match busiest {
            _ if compute_pct >= COMPUTE_BOUND_PCT => Bound::Compute,
            Some((pipe, _)) if pipe.kind == PipeKind::Memory => Bound::Memory,
            Some((pipe, _)) if pipe.kind == PipeKind::Scalar => Bound::Scalar,
            _ if shares.iter().any(|(p, _)| p.kind == PipeKind::Memory) => {
                // The compute pipe is the busiest yet below the bar: the busiest memory pipe is the limiter.
                Bound::Memory
            }
            _ => Bound::BelowCompute,
        };
        let named = match bound {
            Bound::Memory => {
                shares
                    .iter()
                    .filter(|(p, _)| p.kind == PipeKind::Memory)
                    .copied()
                    .reduce(|a, b| if b.1 > a.1 { b } else { a })
            }
            _ => busiest,
        };
        (bound, Some(compute_pct), named.map(|(p, s)| (p.label, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::WeightedMean;

    #[test]
    fn a_weighted_mean_is_the_same_bits_however_its_tasks_are_split_and_ordered() {
        // Ratios and durations as kernel_details.csv has them (4-6 decimals, ns to ms).
        let tasks: Vec<(f64, u64)> = (0..2_000u64)
            .map(|i| {
                (((i * 7919) % 10_000) as f64 / 10_000.0 + 0.000_001 * (i % 7) as f64, 1 + (i * 104_729) % 3_000_000)
            })
            .collect();
        let whole = tasks.iter().fold(WeightedMean::default(), |mut m, &(v, d)| {
            m.add(v, d);
            m
        });
        // The f64 sums these replaced: split in two parts, their last digits change.
        let float =
            |part: &[(f64, u64)]| part.iter().fold((0.0, 0.0), |(s, w), &(v, d)| (s + v * d as f64, w + d as f64));
        let ((a, wa), (b, wb), (all, wall)) = (float(&tasks[..777]), float(&tasks[777..]), float(&tasks));
        assert_ne!((a + b) / (wa + wb), all / wall, "the sample must show the f64 drift");
        for cut in [1, 777, 1_000, 1_999] {
            let (mut first, mut second) = (WeightedMean::default(), WeightedMean::default());
            tasks[..cut].iter().for_each(|&(v, d)| first.add(v, d));
            tasks[cut..].iter().rev().for_each(|&(v, d)| second.add(v, d));
            second.absorb(&first);
            assert_eq!(second.mean().map(f64::to_bits), whole.mean().map(f64::to_bits), "cut at {cut}");
        }
        // The mean itself, against the plain formula.
        let want = all / wall;
        assert!((whole.mean().unwrap() - want).abs() < 1e-12 * want, "{:?} vs {want}", whole.mean());
        assert_eq!(WeightedMean::default().mean(), None);
    }
}
