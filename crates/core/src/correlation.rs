//! The correlation id of a device op (the launch call that made it), or none, in 8 bytes
//! where `Option<u64>` takes 16: a device op is 8 bytes smaller for it, which at 10 M ops is
//! 80 MB less to hold and to stream through every analysis.

use serde::{Serialize, Serializer};

/// A correlation id, or none. `u64::MAX` stands for none: no source numbers launches that high
/// (CUPTI's and Kineto's ids are 32-bit; rocprofv3's carry a process index in the high half).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Correlation(u64);

impl Correlation {
    /// No correlation id.
    pub const NONE: Correlation = Correlation(u64::MAX);

    /// The id, if there is one.
    #[inline]
    pub fn get(self) -> Option<u64> {
        (self.0 != u64::MAX).then_some(self.0)
    }

    /// True when there is an id.
    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != u64::MAX
    }
}

impl Default for Correlation {
    fn default() -> Self {
        Self::NONE
    }
}

impl From<Option<u64>> for Correlation {
    /// `Some(u64::MAX)`, the one id that cannot be held, reads as none.
    #[inline]
    fn from(id: Option<u64>) -> Self {
        Correlation(id.unwrap_or(u64::MAX))
    }
}

impl PartialEq<Option<u64>> for Correlation {
    fn eq(&self, other: &Option<u64>) -> bool {
        self.get() == *other
    }
}

impl std::fmt::Debug for Correlation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl Serialize for Correlation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

/// Serialized as the id or null, as `Option<u64>` is.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Correlation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Option<u64>>::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<u64>>::json_schema(generator)
    }
    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_none_is_none() {
        for id in [0, 1, 7 << 32 | 5, u64::MAX - 1] {
            assert_eq!(Correlation::from(Some(id)).get(), Some(id));
            assert_eq!(Correlation::from(Some(id)), Some(id));
        }
        assert_eq!(Correlation::from(None).get(), None);
        assert_eq!(Correlation::default(), Correlation::NONE);
        assert!(!Correlation::NONE.is_some());
        assert_eq!(serde_json::to_string(&Correlation::from(Some(3))).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Correlation::NONE).unwrap(), "null");
        assert_eq!(format!("{:?}", Correlation::from(Some(3))), "Some(3)");
        assert_eq!(std::mem::size_of::<crate::DeviceOp>() as u64, crate::load_budget::OP_BYTES);
    }
}
