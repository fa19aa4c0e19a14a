//! String interning, so a million-op timeline stores each kernel name once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Index of an interned string in its [`Interner`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NameId(pub u32);

/// A fast, non-cryptographic hasher (FxHash) for interner look-ups: names are
/// not attacker-chosen keys and SipHash dominated the load profile.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("chunk of 8"));
            self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
        }
        for &byte in chunks.remainder() {
            self.hash = (self.hash.rotate_left(5) ^ u64::from(byte)).wrapping_mul(SEED);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.hash = (self.hash.rotate_left(5) ^ value).wrapping_mul(SEED);
    }

    // Integers in one step each (the default splits them into bytes): derived `Hash` of
    // small structs (op details, ids) writes many of them.
    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }

    fn write_u16(&mut self, value: u16) {
        self.write_u64(u64::from(value));
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// `HashMap` with [`FxHasher`], for hot look-ups keyed by names or ids.
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Owns every distinct string of a timeline and hands out [`NameId`]s.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: FxHashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `name`, adding it on first sight.
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = NameId(u32::try_from(self.names.len()).expect("fewer than 2^32 distinct names"));
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// [`Interner::intern`] with a guess: when `guess` is the id of `text`, that id, found by
    /// one comparison instead of a hash and a probe; `guess` becomes the id returned. For a
    /// column whose value mostly repeats one seen before (a row's task type, the shapes an
    /// op had the last time it ran).
    #[inline]
    pub fn intern_guess(&mut self, text: &str, guess: &mut Option<NameId>) -> NameId {
        if let Some(id) = *guess {
            if self.is(id, text) {
                return id;
            }
        }
        let id = self.intern(text);
        *guess = Some(id);
        id
    }

    /// Whether `id` is this interner's id of `text`.
    #[inline]
    pub fn is(&self, id: NameId, text: &str) -> bool {
        self.names.get(id.0 as usize).is_some_and(|name| same_text(name, text))
    }

    /// The id of `name` if it was interned.
    pub fn get(&self, name: &str) -> Option<NameId> {
        self.ids.get(name).copied()
    }

    /// The string behind `id`; an id from another interner yields `"?"`.
    pub fn resolve(&self, id: NameId) -> &str {
        self.names.get(id.0 as usize).map_or("?", |name| name)
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every string, in id order (the string of `NameId(i)` is the `i`-th).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> {
        self.names.iter().map(|name| &**name)
    }
}

mod next_guess;
pub use next_guess::NextGuess;

/// `a == b`, with the short texts most guesses are (names, op types, shapes of up to 64
/// bytes) compared by word loads (the last overlapping), inline, rather than by a call to
/// `memcmp`.
#[inline(always)]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"));
    match n {
        0..=3 => a == b,
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        // Shapes (`8,4096;4096,4096`): word by word, the last word overlapping.
        17..=64 => (0..n - 8).step_by(8).all(|at| word(a, at) == word(b, at)) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_compare_as_their_bytes() {
        let texts = ["", "a", "ab", "abc", "abcd", "abce", "abcdefg", "bbcdefg", "abcdefgh", "abcdefgx", "xbcdefgh"];
        let longer = ["0123456789abcdef", "0123456789abcdeF", "0123456789abcdefg", "0123456789abcdefh"];
        for a in texts.iter().chain(&longer) {
            for b in texts.iter().chain(&longer) {
                assert_eq!(same_text(a, b), a == b, "{a:?} {b:?}");
            }
        }
        // Every length up to 70, differing at every place.
        for n in 0..=70 {
            let base: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(same_text(&base, &base.clone()));
            for at in 0..n {
                let mut other = base.clone().into_bytes();
                other[at] = b'Z';
                assert!(!same_text(&base, std::str::from_utf8(&other).unwrap()), "{n} {at}");
            }
        }
    }

    #[test]
    fn same_name_same_id_and_round_trip() {
        let mut interner = Interner::new();
        let a = interner.intern("ampere_sgemm_128x64_nn");
        let b = interner.intern("rms_norm_kernel");
        assert_ne!(a, b);
        assert_eq!(interner.intern("ampere_sgemm_128x64_nn"), a);
        assert_eq!(interner.resolve(b), "rms_norm_kernel");
        assert_eq!(interner.len(), 2);
        assert_eq!(interner.resolve(NameId(99)), "?");
    }

    #[test]
    fn a_guess_gives_the_same_ids_as_interning() {
        let mut interner = Interner::new();
        let mut plain = Interner::new();
        let mut guess = None;
        // Repeats, changes, a guess that names another text, and one past the names held.
        for text in ["AI_CORE", "AI_CORE", "AI_VECTOR_CORE", "AI_CORE", "", "", "AI_VECTOR_CORE"] {
            assert_eq!(interner.intern_guess(text, &mut guess), plain.intern(text));
            assert_eq!(guess, plain.get(text));
        }
        let mut wrong = Some(NameId(7));
        assert_eq!(interner.intern_guess("AI_CORE", &mut wrong), plain.intern("AI_CORE"));
        let mut other = plain.get("AI_VECTOR_CORE");
        assert_eq!(interner.intern_guess("MIX_AIC", &mut other), plain.intern("MIX_AIC"));
        assert_eq!(interner.len(), plain.len());
    }
}
