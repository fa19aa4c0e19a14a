//! A rank's compact summary (`prof.rank-summary.v1`), written where the rank was captured so a
//! job of a thousand ranks is merged from a few hundred KB per rank instead of its traces:
//! the rank's time split, its steps, families, top kernels and every collective with its start,
//! end and bytes ([`RankSummary::of`]). [`merge`] reads any number of them in bounded memory
//! and names the slow ranks and why, the per-step skew, and the rank every collective waits on.
//!
//! Clocks: the merge compares collective starts across ranks as they are written, so the
//! ranks' clocks must agree (one node; or nodes whose clocks are synchronised, as NTP/PTP keep
//! them within well under a millisecond). The merge reports the ranks' first-step start spread
//! so an unsynchronised job shows itself.

mod kept;
mod merge;
mod skew;
mod steps;
mod summary;

pub use merge::{merge, CollectiveWait, JobReport, LinkSuspect, RankRow, Straggler, MIN_MATCHED};
pub use skew::{LateStart, StepHeat, StepSkew, HEAT_SIDE, MIN_STEPS};
pub use summary::{file_name, is_rank_summary, Collective, RankSummary, SCHEMA, SUFFIX};
