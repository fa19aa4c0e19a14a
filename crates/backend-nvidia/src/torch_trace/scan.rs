//! Byte-level JSON lexing over a buffer that may end mid-value.
//!
//! Every function takes the buffer and a position and returns the value and the position
//! after it, or [`Stop::More`] when the buffer ends first (the caller reads more and retries
//! from a point it kept), or [`Stop::Bad`] with the offending position.

/// Why a lexing step stopped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stop {
    /// The buffer ended inside the value.
    More,
    /// Malformed input at this buffer position.
    Bad(usize, String),
}

pub(crate) type Lex<T> = Result<(T, usize), Stop>;

/// Strings this short are scanned byte by byte; longer ones with `memchr`.
const SHORT_STRING: usize = 32;

/// Deepest nesting a skipped value may have.
const MAX_DEPTH: usize = 256;

pub(crate) fn bad<T>(at: usize, reason: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Bad(at, reason.into()))
}

/// Position of the first non-whitespace byte at or after `i`.
pub(crate) fn ws(b: &[u8], mut i: usize) -> Result<usize, Stop> {
    loop {
        match b.get(i) {
            Some(b' ' | b'\n' | b'\r' | b'\t') => i += 1,
            Some(_) => return Ok(i),
            None => return Err(Stop::More),
        }
    }
}

/// The byte at `i`, or [`Stop::More`].
pub(crate) fn peek(b: &[u8], i: usize) -> Result<u8, Stop> {
    b.get(i).copied().ok_or(Stop::More)
}

/// Expects `byte` at `i` (after whitespace); returns the position after it.
pub(crate) fn expect(b: &[u8], i: usize, byte: u8, what: &str) -> Result<usize, Stop> {
    let i = ws(b, i)?;
    if peek(b, i)? == byte {
        Ok(i + 1)
    } else {
        bad(i, format!("expected {what}, found {}", shown(b, i)))
    }
}

/// A string's raw bytes between the quotes, and whether it holds escapes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Str<'a> {
    pub raw: &'a [u8],
    pub escaped: bool,
}

/// The string starting with the quote at `i`.
pub(crate) fn string(b: &[u8], i: usize) -> Lex<Str<'_>> {
    if peek(b, i)? != b'"' {
        return bad(i, format!("expected a string, found {}", shown(b, i)));
    }
    let start = i + 1;
    let mut j = start;
    let mut escaped = false;
    for (k, &c) in b.get(start..).unwrap_or_default().iter().take(SHORT_STRING).enumerate() {
        match c {
            b'"' => return Ok((Str { raw: b.get(start..start + k).ok_or(Stop::More)?, escaped }, start + k + 1)),
            b'\\' => break,
            _ => j = start + k + 1,
        }
    }
    loop {
        let rest = b.get(j..).ok_or(Stop::More)?;
        match memchr::memchr2(b'"', b'\\', rest) {
            None => return Err(Stop::More),
            Some(k) if rest.get(k) == Some(&b'"') => {
                let raw = b.get(start..j + k).ok_or(Stop::More)?;
                return Ok((Str { raw, escaped }, j + k + 1));
            }
            Some(k) => {
                escaped = true;
                j += k + 2;
                if j > b.len() {
                    return Err(Stop::More);
                }
            }
        }
    }
}

/// A scalar value: a number's token, or a string's raw content.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar<'a> {
    Num(&'a [u8]),
    Str(&'a [u8]),
}

impl<'a> Scalar<'a> {
    /// The digits to parse, whether written as a number or (as torch_npu does) a string.
    pub fn text(self) -> &'a [u8] {
        match self {
            Scalar::Num(t) | Scalar::Str(t) => t,
        }
    }
}

/// A number or string at `i`; anything else is skipped and reported as `None`.
pub(crate) fn scalar(b: &[u8], i: usize) -> Lex<Option<Scalar<'_>>> {
    match peek(b, i)? {
        b'"' => string(b, i).map(|(s, next)| (Some(Scalar::Str(s.raw)), next)),
        b'-' | b'0'..=b'9' => {
            let (token, next) = bare(b, i)?;
            Ok((Some(Scalar::Num(token)), next))
        }
        _ => skip(b, i).map(|next| (None, next)),
    }
}

/// A bare token (number, `true`, `false`, `null`) at `i`. A number ends at the first byte
/// that cannot be part of one; the caller checks what follows.
fn bare(b: &[u8], i: usize) -> Lex<&[u8]> {
    let rest = b.get(i..).ok_or(Stop::More)?;
    let len = match rest.first() {
        Some(b'-' | b'0'..=b'9') => {
            rest.iter().position(|&c| !matches!(c, b'0'..=b'9' | b'.' | b'-' | b'+' | b'e' | b'E')).ok_or(Stop::More)?
        }
        Some(b't' | b'n') if rest.len() < 4 => return Err(Stop::More),
        Some(b'f') if rest.len() < 5 => return Err(Stop::More),
        Some(_) if rest.starts_with(b"true") || rest.starts_with(b"null") => 4,
        Some(_) if rest.starts_with(b"false") => 5,
        Some(_) => return bad(i, format!("expected a JSON value, found {}", shown(b, i))),
        None => return Err(Stop::More),
    };
    Ok((rest.get(..len).ok_or(Stop::More)?, i + len))
}

/// Skips the value at `i` (which must not be whitespace); strings must be terminated and
/// brackets balanced and matched, the rest of a skipped value is not checked.
pub(crate) fn skip(b: &[u8], i: usize) -> Result<usize, Stop> {
    match peek(b, i)? {
        b'"' => return string(b, i).map(|(_, next)| next),
        b'{' | b'[' => {}
        _ => return bare(b, i).map(|(_, next)| next),
    }
    let mut stack = [0u8; MAX_DEPTH];
    let mut depth = 0usize;
    let mut j = i;
    loop {
        let rest = b.get(j..).ok_or(Stop::More)?;
        let k = rest.iter().position(|c| matches!(c, b'"' | b'{' | b'[' | b'}' | b']')).ok_or(Stop::More)?;
        j += k;
        match peek(b, j)? {
            b'"' => {
                j = string(b, j)?.1;
                continue;
            }
            open @ (b'{' | b'[') => {
                let slot = stack.get_mut(depth).ok_or_else(|| Stop::Bad(j, "nesting too deep".to_owned()))?;
                *slot = if open == b'{' { b'}' } else { b']' };
                depth += 1;
            }
            close => {
                depth -= 1;
                if stack.get(depth) != Some(&close) {
                    return bad(j, format!("mismatched `{}`", char::from(close)));
                }
                if depth == 0 {
                    return Ok(j + 1);
                }
            }
        }
        j += 1;
    }
}

/// An array of exactly three unsigned 32-bit numbers at `i` (`"grid": [2, 64, 1]`).
pub(crate) fn triple(b: &[u8], i: usize) -> Lex<[u32; 3]> {
    let mut j = expect(b, i, b'[', "`[`")?;
    let mut out = [0u32; 3];
    for (n, slot) in out.iter_mut().enumerate() {
        j = ws(b, j)?;
        let (token, next) = bare(b, j)?;
        *slot = parse_uint(token).and_then(|v| u32::try_from(v).ok()).ok_or_else(|| {
            Stop::Bad(j, format!("expected an unsigned integer, found {}", String::from_utf8_lossy(token)))
        })?;
        j = if n < 2 { expect(b, next, b',', "`,` in a 3-element array")? } else { next };
    }
    Ok((out, expect(b, j, b']', "`]` after 3 elements")?))
}

/// An unsigned integer; `None` for anything else (sign, fraction, exponent, overflow).
pub(crate) fn parse_uint(text: &[u8]) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u64, |acc, &c| {
        let digit = c.checked_sub(b'0').filter(|d| *d < 10)?;
        acc.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// Microseconds written in decimal (`5359103342279.386`) as integer nanoseconds, exactly:
/// the digits are read as text, never through a float. Digits past the third decimal
/// round half up. A number with an exponent falls back to `f64`. Negative is `None`.
pub(crate) fn micros_to_ns(text: &[u8]) -> Option<u64> {
    if text.iter().any(|c| matches!(c, b'e' | b'E')) {
        let value: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
        let ns = (value * 1_000.0).round();
        return (ns.is_finite() && (0.0..1.8e19).contains(&ns)).then_some(ns as u64);
    }
    let (int, frac) = match text.iter().position(|&c| c == b'.') {
        Some(dot) => (text.get(..dot)?, text.get(dot + 1..)?),
        None => (text, &b""[..]),
    };
    if frac.iter().any(|c| !c.is_ascii_digit()) || (frac.is_empty() && text.contains(&b'.')) {
        return None;
    }
    let mut ns = parse_uint(int)?.checked_mul(1_000)?;
    let mut scale = 100u64;
    for &digit in frac.iter().take(3) {
        ns = ns.checked_add(u64::from(digit - b'0') * scale)?;
        scale /= 10;
    }
    if frac.get(3).is_some_and(|&d| d >= b'5') {
        ns = ns.checked_add(1)?;
    }
    Some(ns)
}

/// A few bytes at `i` for an error message.
pub(crate) fn shown(b: &[u8], i: usize) -> String {
    match b.get(i..) {
        Some(rest) if !rest.is_empty() => {
            let cut = &rest[..rest.len().min(24)];
            format!("`{}`", String::from_utf8_lossy(cut).replace('\n', "\\n"))
        }
        _ => "the end of the data".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_and_converts_without_float_drift() {
        assert_eq!(micros_to_ns(b"5359103342279.386"), Some(5_359_103_342_279_386));
        assert_eq!(micros_to_ns(b"1712195495505582.988"), Some(1_712_195_495_505_582_988));
        assert_eq!(micros_to_ns(b"1.6"), Some(1_600));
        assert_eq!(micros_to_ns(b"71"), Some(71_000));
        assert_eq!(micros_to_ns(b"0.0005"), Some(1));
        assert_eq!(micros_to_ns(b"1.5e3"), Some(1_500_000));
        assert_eq!(micros_to_ns(b"-1.0"), None);
        assert_eq!(micros_to_ns(b"1."), None);
        assert_eq!(micros_to_ns(b"99999999999999999999"), None);
        let json = br#"{"a": [1, {"b": "x\"}"}], "c": 2}"#;
        assert_eq!(skip(json, 0), Ok(json.len()));
        assert!(matches!(skip(br#"{"a": [1}"#, 0), Err(Stop::Bad(8, _))));
        assert_eq!(skip(br#"{"a": [1, 2"#, 0), Err(Stop::More));
        assert_eq!(string(br#""ab\"c" "#, 0).map(|(s, n)| (s.escaped, n)), Ok((true, 7)));
        assert_eq!(string(br#""ab\"#, 0), Err(Stop::More));
        assert_eq!(triple(b"[2, 64, 1] ", 0), Ok(([2, 64, 1], 10)));
        assert!(matches!(triple(b"[2, 64] ", 0), Err(Stop::Bad(..))));
        assert_eq!(scalar(b"12.5,", 0), Ok((Some(Scalar::Num(b"12.5")), 4)));
        assert_eq!(scalar(b"12.5", 0), Err(Stop::More));
    }
}
