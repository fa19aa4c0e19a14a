//! One operation that ran on a device, as every loader builds it and every analysis reads it.

use crate::correlation::Correlation;
use crate::details_pool::DetailsId;
use crate::dur_word::Dur;
use crate::intern::NameId;
use crate::op_kind::OpKind;
use crate::op_label::Label;
use crate::op_place::Place;
use serde::Serialize;

/// One operation that ran on a device: 24 bytes (its duration in a 4-byte word, above; its
/// kind, device and stream packed in another: `op_place.rs`; its correlation id in a third:
/// `correlation.rs`; its name and details id in a fourth: `op_label.rs`), so 10 M ops are
/// 240 MB. The 8-byte start first, then the four-byte words: no padding.
#[derive(Clone, Copy, PartialEq)]
#[repr(C)]
pub struct DeviceOp {
    /// Start, nanoseconds on the source's clock.
    pub start_ns: u64,
    /// Duration ([`DeviceOp::dur_ns`]).
    dur: Dur,
    /// Correlation id linking the op to the host span that launched it (`.get()` for the id).
    pub correlation: Correlation,
    /// Name and details ([`DeviceOp::name`], [`DeviceOp::details`]).
    label: Label,
    /// Kind, device and stream ([`DeviceOp::kind`], [`DeviceOp::device`], [`DeviceOp::stream`]).
    place: Place,
}

impl DeviceOp {
    /// An op with the mandatory fields and no details.
    #[inline]
    pub fn new(kind: OpKind, name: NameId, device: u32, stream: u64, start_ns: u64, dur_ns: u64) -> Self {
        let place = Place::new(kind, device, stream);
        Self { start_ns, dur: Dur::new(dur_ns), correlation: Correlation::NONE, label: Label::new(name, None), place }
    }

    /// Kernel or op name.
    #[inline]
    pub fn name(&self) -> NameId {
        self.label.name()
    }

    /// Everything else the source has: an id in the timeline's pool, shared with the ops
    /// whose details are equal ([`Timeline::details_of`](crate::Timeline::details_of) reads them).
    #[inline]
    pub fn details(&self) -> Option<DetailsId> {
        self.label.details()
    }

    /// Gives it the name `name` and the details `details` (ids of its timeline).
    #[inline]
    pub fn relabel(&mut self, name: NameId, details: Option<DetailsId>) {
        self.label = Label::new(name, details);
    }

    /// Gives it the details `details` (an id of its timeline's pool), keeping its name.
    #[inline]
    pub fn set_details(&mut self, details: Option<DetailsId>) {
        self.label = Label::new(self.name(), details);
    }

    /// Duration, nanoseconds.
    #[inline]
    pub fn dur_ns(&self) -> u64 {
        self.dur.ns()
    }

    /// End, nanoseconds on the source's clock.
    #[inline]
    pub fn end_ns(&self) -> u64 {
        self.start_ns.saturating_add(self.dur_ns())
    }

    /// What it does.
    #[inline]
    pub fn kind(&self) -> OpKind {
        self.place.kind()
    }

    /// Device index as the source numbers it.
    #[inline]
    pub fn device(&self) -> u32 {
        self.place.device()
    }

    /// Stream (or queue) id.
    #[inline]
    pub fn stream(&self) -> u64 {
        self.place.stream()
    }

    /// Its device and stream as one key, equal for two ops exactly when both are (for
    /// grouping ops by stream without unpacking them).
    #[inline]
    pub fn lane(&self) -> u64 {
        self.place.lane()
    }
}

impl std::fmt::Debug for DeviceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceOp")
            .field("kind", &self.kind())
            .field("name", &self.name())
            .field("device", &self.device())
            .field("stream", &self.stream())
            .field("start_ns", &{ self.start_ns })
            .field("dur_ns", &self.dur_ns())
            .field("correlation", &{ self.correlation })
            .field("details", &self.details())
            .finish()
    }
}

impl Serialize for DeviceOp {
    /// The fields as they read: kind, name, device, stream, start_ns, dur_ns, correlation, details.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut op = serializer.serialize_struct("DeviceOp", 8)?;
        op.serialize_field("kind", &self.kind())?;
        op.serialize_field("name", &self.name())?;
        op.serialize_field("device", &self.device())?;
        op.serialize_field("stream", &self.stream())?;
        op.serialize_field("start_ns", &{ self.start_ns })?;
        op.serialize_field("dur_ns", &self.dur_ns())?;
        op.serialize_field("correlation", &{ self.correlation })?;
        op.serialize_field("details", &self.details())?;
        op.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_past_the_word_read_back_exactly_and_compare_by_value() {
        let op = |dur: u64| DeviceOp::new(OpKind::Kernel, NameId(1), 0, 7, 1_000, dur);
        let edges = [0, 1, (1 << 31) - 1, 1 << 31, (1 << 31) + 1, 3_000_000_000, u64::from(u32::MAX), u64::MAX - 1_000];
        for dur in edges {
            assert_eq!(op(dur).dur_ns(), dur);
            assert_eq!(op(dur).end_ns(), 1_000u64.saturating_add(dur));
            // Canonical: the same duration gives the same word, another a different one.
            assert!(op(dur) == op(dur));
            assert!(op(dur) != op(dur ^ 1));
        }
        // Long durations added from other threads read back on this one, and the reverse.
        let theirs: Vec<DeviceOp> =
            std::thread::spawn(move || (0..5_000u64).map(|k| op(5_000_000_000 + k)).collect()).join().unwrap();
        assert!(theirs.iter().enumerate().all(|(k, o)| o.dur_ns() == 5_000_000_000 + k as u64));
    }
}
