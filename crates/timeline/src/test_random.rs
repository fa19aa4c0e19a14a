//! A seeded xorshift generator for the tests that compare a fast path with a plain one on
//! random inputs: the same sequence on every run and machine.

/// See the module.
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a non-zero `seed`.
    pub fn new(seed: u64) -> Self {
        XorShift(seed)
    }

    /// The next number, below `bound` (> 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}
