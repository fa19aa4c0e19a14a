//! Two pieces of work at once: the second on a scoped thread, the first on the caller's, a
//! panic on either raised on the caller (the analyses of a large run split a walk in halves).

/// Ops from which a walk over a run's ops is split in two halves, one per core.
pub const SPLIT_OPS: usize = 1 << 20;

/// `first()` and `second()` at once, `second` on a thread of its own.
pub fn both<A, B: Send>(first: impl FnOnce() -> A, second: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|scope| {
        let second = scope.spawn(second);
        let first = first();
        (first, second.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_answer_and_a_panic_on_the_thread_reaches_the_caller() {
        assert_eq!(super::both(|| 2 + 2, || "four"), (4, "four"));
        let raised = std::panic::catch_unwind(|| super::both(|| 1, || -> u8 { panic!("second failed") }));
        assert_eq!(raised.unwrap_err().downcast_ref::<&str>(), Some(&"second failed"));
    }
}
