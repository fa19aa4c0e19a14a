//! The protobuf wire format, as far as XSpace needs it: varints, fixed 64/32-bit words and
//! length-delimited fields, read from a byte slice without copying. Each malformed field is an
//! error giving its byte offset in the file.

/// One field of a message: its number and value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: a string, bytes or an embedded message.
    Bytes(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

impl Value<'_> {
    /// The value as a signed 64-bit integer (protobuf `int64` is a two's-complement varint).
    pub(crate) fn int(&self) -> Option<i64> {
        match *self {
            Value::Varint(v) | Value::Fixed64(v) => Some(v as i64),
            Value::Fixed32(v) => Some(i64::from(v)),
            Value::Bytes(_) => None,
        }
    }
}

/// The fields of one message, in order, with their byte offsets in the whole file.
pub(crate) struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Offset of `bytes` in the file, for errors.
    base: usize,
}

impl<'a> Fields<'a> {
    /// The fields of the message `bytes`, which starts at byte `base` of the file.
    pub(crate) fn new(bytes: &'a [u8], base: usize) -> Self {
        Self { bytes, at: 0, base }
    }

    /// Offset in the file of the next field.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.at
    }

    /// The next varint, as the wire format writes one (a key, a length).
    pub(crate) fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(format!("a varint runs past the end of its message at byte {}", self.offset()));
            };
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(format!("a varint longer than 10 bytes at byte {}", self.offset()))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or_else(|| {
            format!(
                "a field of {n} bytes at byte {} runs past the end of its message ({} bytes left): the file is cut short \
                 or not an XSpace",
                self.offset(),
                self.bytes.len() - self.at
            )
        })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// The next field: `(number, value, offset of the value in the file)`, `None` at the end.
    pub(crate) fn next_field(&mut self) -> Result<Option<(u32, Value<'a>, usize)>, String> {
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let key_at = self.offset();
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).map_err(|_| format!("a field number past 2^32 at byte {key_at}"))?;
        if number == 0 {
            return Err(format!("field number 0 at byte {key_at}: not a protobuf message"));
        }
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => Value::Fixed64(u64::from_le_bytes(self.take(8)?.try_into().unwrap_or([0; 8]))),
            2 => {
                let len = self.varint()?;
                let len = usize::try_from(len).map_err(|_| format!("a length past memory at byte {key_at}"))?;
                let start = self.offset();
                return Ok(Some((number, Value::Bytes(self.take(len)?), start)));
            }
            5 => Value::Fixed32(u32::from_le_bytes(self.take(4)?.try_into().unwrap_or([0; 4]))),
            other => return Err(format!("wire type {other} at byte {key_at}: not a protobuf message")),
        };
        Ok(Some((number, value, self.offset())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8]) -> Result<Vec<(u32, Value<'_>)>, String> {
        let mut fields = Fields::new(bytes, 0);
        let mut out = Vec::new();
        while let Some((n, v, _)) = fields.next_field()? {
            out.push((n, v));
        }
        Ok(out)
    }

    #[test]
    fn reads_each_wire_type_and_negative_int64() {
        // field 1 varint 150; field 2 bytes "hi"; field 3 fixed64 7; field 4 fixed32 9;
        // field 5 varint -2 as int64 (ten bytes).
        let mut bytes = vec![0x08, 0x96, 0x01, 0x12, 2, b'h', b'i', 0x19, 7, 0, 0, 0, 0, 0, 0, 0, 0x25, 9, 0, 0, 0];
        bytes.extend([0x28, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        let fields = all(&bytes).unwrap();
        assert_eq!(fields[0], (1, Value::Varint(150)));
        assert_eq!(fields[1], (2, Value::Bytes(b"hi")));
        assert_eq!(fields[2], (3, Value::Fixed64(7)));
        assert_eq!(fields[3], (4, Value::Fixed32(9)));
        assert_eq!(fields[4].1.int(), Some(-2));
    }

    #[test]
    fn a_cut_or_foreign_message_is_an_error_with_its_offset() {
        let cut = all(&[0x12, 5, b'a']).unwrap_err();
        assert!(cut.contains("at byte 2") && cut.contains("cut short"), "{cut}");
        assert!(all(&[0x0f]).unwrap_err().contains("wire type 7 at byte 0"));
        assert!(all(&[0x00]).unwrap_err().contains("field number 0"));
        assert!(all(&[0x08, 0x80]).unwrap_err().contains("runs past the end"));
    }
}
