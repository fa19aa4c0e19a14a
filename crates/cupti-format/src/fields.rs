//! Little-endian fields, the format's one byte order: appending them to a buffer and taking
//! them off the front of a body.

/// A fixed-size number stored little-endian.
pub(crate) trait Field: Sized {
    /// Appends `self`.
    fn put(self, out: &mut Vec<u8>);
    /// Takes one value off the front of `fields`; `None` when too few bytes remain.
    fn take(fields: &mut Fields<'_>) -> Option<Self>;
}

macro_rules! little_endian_fields {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn take(fields: &mut Fields<'_>) -> Option<Self> {
                fields.take_array().map(<$t>::from_le_bytes)
            }
        }
    )*};
}
little_endian_fields!(u8, u16, u32, i32, u64);

/// Appends each of `values`.
pub(crate) fn put_all<T: Field>(out: &mut Vec<u8>, values: impl IntoIterator<Item = T>) {
    for v in values {
        v.put(out);
    }
}

/// The unread rest of a record body.
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
    taken: usize,
}

impl<'a> Fields<'a> {
    /// Reads `bytes` from the start.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes, taken: 0 }
    }

    /// Bytes taken so far.
    pub(crate) fn taken(&self) -> usize {
        self.taken
    }

    /// The next value of type `T`.
    pub(crate) fn take<T: Field>(&mut self) -> Option<T> {
        T::take(self)
    }

    /// The next three values (grid or block dimensions).
    pub(crate) fn take3<T: Field>(&mut self) -> Option<[T; 3]> {
        Some([self.take()?, self.take()?, self.take()?])
    }

    /// The next `len` bytes.
    pub(crate) fn bytes(&mut self, len: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.rest.split_at_checked(len)?;
        self.rest = rest;
        self.taken += len;
        Some(head)
    }

    /// The next `N` bytes.
    pub(crate) fn take_array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.rest.split_first_chunk::<N>()?;
        self.rest = rest;
        self.taken += N;
        Some(*head)
    }
}
