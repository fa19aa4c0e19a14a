//! [`NextGuess`]: the id of each value of a column whose values come back in the same order,
//! guessed and confirmed by one comparison instead of a hash look-up.

use super::{Interner, NameId};

/// Guesses each value of a column whose values come back in the same order (the ops of a
/// step, step after step), confirmed by one comparison, so a repeating sequence is interned
/// without look-ups. Two guesses: the value after the row it follows (once a row matches one
/// of an earlier step, the rows after it match that step's too, whatever repeats inside a
/// step), else the value that followed the previous value the last time. After a row neither
/// named, the row it follows is the one of the last [`CANDIDATES`] earlier rows of the same
/// value whose rows before match the rows before it longest (up to [`CONTEXT`]): the same
/// place in an earlier step, not merely the latest row of that value. On real traces of
/// repeated steps 4-5 % of rows are looked up where the second guess alone left about half.
#[derive(Debug, Default, Clone)]
pub struct NextGuess {
    /// Per id, the id that followed it last.
    after: Vec<Option<NameId>>,
    last: Option<NameId>,
    /// The ids of the latest [`RECENT`] rows, by row number modulo [`RECENT`] (allocated with
    /// the first row).
    recent: Vec<u32>,
    /// Per row, like `recent`: how many rows back its value was seen before (0: not within
    /// [`RECENT`]).
    back: Vec<u32>,
    /// Per id, the row it was last seen on, plus one (0: not seen).
    seen: Vec<u64>,
    /// Rows interned so far.
    rows: u64,
    /// The earlier row the current one matched: the next guess is the row after it.
    follows: Option<u64>,
    /// Rows neither guess named (tests count them).
    #[cfg(test)]
    missed: usize,
}

/// Rows a [`NextGuess`] looks back over (two rings of 256 kB): in a step longer than this,
/// only the value that followed the previous one is guessed.
const RECENT: u64 = 1 << 16;
/// Earlier rows of a value weighed after a row no guess named.
const CANDIDATES: usize = 4;
/// Rows before compared to weigh them.
const CONTEXT: u64 = 16;

impl NextGuess {
    /// [`Interner::intern`] of `text` in `interner` (the same interner every call).
    #[inline]
    pub fn intern(&mut self, interner: &mut Interner, text: &str) -> NameId {
        let row = self.rows;
        if self.recent.is_empty() {
            self.recent = vec![0; RECENT as usize];
            self.back = vec![0; RECENT as usize];
        }
        let along = self.follows.map(|at| at + 1).filter(|&at| at < row && row - at < RECENT);
        let id = match along.map(|at| NameId(self.id_at(at))) {
            Some(id) if interner.is(id, text) => {
                self.follows = along;
                id
            }
            _ => {
                let slot = self.last.map(|last| last.0 as usize);
                let mut guess = slot.and_then(|s| self.after.get(s).copied().flatten());
                #[cfg(test)]
                {
                    self.missed += usize::from(guess.is_none_or(|g| !interner.is(g, text)));
                }
                let id = interner.intern_guess(text, &mut guess);
                self.follows = self.best_earlier(id, row);
                id
            }
        };
        if let Some(slot) = self.last.map(|last| last.0 as usize) {
            if slot >= self.after.len() {
                self.after.resize(slot + 1, None);
            }
            self.after[slot] = Some(id);
        }
        let slot = id.0 as usize;
        if slot >= self.seen.len() {
            self.seen.resize(slot + 1, 0);
        }
        let before = self.seen[slot];
        let back = if before > 0 && row - (before - 1) < RECENT { row - (before - 1) } else { 0 };
        self.seen[slot] = row + 1;
        let ring = (row % RECENT) as usize;
        self.recent[ring] = id.0;
        self.back[ring] = back as u32;
        self.rows = row + 1;
        self.last = Some(id);
        id
    }

    /// The id of `row` (one of the last [`RECENT`]).
    #[inline]
    fn id_at(&self, row: u64) -> u32 {
        self.recent[(row % RECENT) as usize]
    }

    /// Of the last [`CANDIDATES`] rows before `row` with the value `id`, the one whose rows
    /// before match the rows before `row` longest (the latest of equals); `None` when `id`
    /// was not seen within [`RECENT`] rows.
    fn best_earlier(&self, id: NameId, row: u64) -> Option<u64> {
        let mut at = self.seen.get(id.0 as usize).copied().unwrap_or(0).checked_sub(1)?;
        let mut best: Option<(u64, u64)> = None;
        for _ in 0..CANDIDATES {
            if row - at >= RECENT {
                break;
            }
            let mut len = 0;
            while len < CONTEXT
                && len < at
                && row - (at - 1 - len) < RECENT
                && self.id_at(at - 1 - len) == self.id_at(row - 1 - len)
            {
                len += 1;
            }
            if best.is_none_or(|(_, longest)| len > longest) {
                best = Some((at, len));
            }
            let back = u64::from(self.back[(at % RECENT) as usize]);
            if len == CONTEXT || back == 0 {
                break;
            }
            at -= back;
        }
        best.map(|(at, _)| at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_guessed_gives_the_same_ids_as_interning() {
        let (mut interner, mut plain, mut next) = (Interner::new(), Interner::new(), NextGuess::default());
        let step = ["embed", "norm", "gemm", "attn", "gemm", "norm", "gemm"];
        // Steps that repeat, one that changes midway, and a name met for the first time late.
        let mut texts: Vec<&str> = step.iter().cycle().take(40).copied().collect();
        texts.extend(["norm", "topk", "gemm", "new_one", "embed", "norm"]);
        for text in texts {
            assert_eq!(next.intern(&mut interner, text), plain.intern(text), "{text}");
        }
        assert_eq!(interner.len(), plain.len());
    }

    /// The ids of `texts` by a [`NextGuess`] (checked against plain interning) and the rows
    /// neither guess named.
    fn guessed(texts: &[String]) -> usize {
        let (mut interner, mut plain, mut next) = (Interner::new(), Interner::new(), NextGuess::default());
        for text in texts {
            assert_eq!(next.intern(&mut interner, text), plain.intern(text), "{text}");
        }
        assert_eq!(interner.len(), plain.len());
        next.missed
    }

    #[test]
    fn rows_after_a_match_are_guessed_whatever_repeats_inside_a_step() {
        // A step of 12 ops where `gemm` and `norm` come back with different ops after them:
        // the value that followed the last `gemm` is wrong half the time, the step's order
        // never is.
        let step: Vec<String> =
            "embed norm gemm attn gemm norm gemm act gemm norm gemm head".split(' ').map(str::to_owned).collect();
        let steps: Vec<String> = step.iter().cycle().take(step.len() * 100).cloned().collect();
        // First sight of the 6 names, then the first step's repeats the successor table has
        // not seen yet; after that no row is looked up.
        let missed = guessed(&steps);
        assert!(missed <= step.len(), "{missed} rows looked up");
        // The previous-value guess alone: 3 of every 12 rows of each step miss.
        let mut alone = NextGuess::default();
        let mut interner = Interner::new();
        let mut misses = 0;
        for text in &steps {
            let slot = alone.last.map(|l| l.0 as usize);
            let guess = slot.and_then(|s| alone.after.get(s).copied().flatten());
            misses += usize::from(guess.is_none_or(|g| !interner.is(g, text)));
            let id = interner.intern(text);
            if let Some(s) = slot {
                alone.after.resize(alone.after.len().max(s + 1), None);
                alone.after[s] = Some(id);
            }
            alone.last = Some(id);
        }
        assert!(misses > 200, "{misses}");
    }

    #[test]
    fn steps_past_the_ring_and_changed_steps_give_the_same_ids() {
        // A step longer than the ring (guessed by the previous value only), a step that
        // changes midway, and names that come back after the ring has wrapped.
        let long: Vec<String> = (0..RECENT as usize + 500).map(|i| format!("k{}", i % 7000)).collect();
        let mut texts = long.clone();
        texts.extend(long.iter().take(3000).cloned());
        texts.extend(["new".to_owned(), "k5".to_owned(), "k6".to_owned()]);
        texts.extend(long.iter().skip(100).take(5000).cloned());
        guessed(&texts);
        // A short step after a long one: guessed again within two steps.
        let short: Vec<String> = (0..50).map(|i| format!("s{}", i % 20)).collect();
        let mut mixed = texts.clone();
        let before = guessed(&mixed);
        for _ in 0..20 {
            mixed.extend(short.iter().cloned());
        }
        assert!(guessed(&mixed) - before <= 20 + 50, "{}", guessed(&mixed) - before);
    }

    #[test]
    fn a_value_repeated_inside_a_step_follows_the_same_place_of_the_step_before() {
        // The rocprofv3 fixture's nine kernels in start order: `a` three times a step, once
        // right after itself. Following the latest `a` after a miss lands a few rows back in
        // the same step and misses again (22 % of rows); weighing the rows before finds the
        // place in the step before.
        let step: Vec<String> = "a s m d a s m d a".split(' ').map(str::to_owned).collect();
        let steps: Vec<String> = step.iter().cycle().take(step.len() * 200).cloned().collect();
        let missed = guessed(&steps);
        assert!(missed <= 2 * step.len(), "{missed} rows looked up");
    }
}
