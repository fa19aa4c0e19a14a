//! The NVTX callbacks of [`super`]'s subscriber: ranges pushed and popped (per thread and
//! domain) and started and ended (by id), with their messages: ASCII, or strings registered
//! with `nvtxDomainRegisterStringA`. Layouts in [`super`]'s notes.

use super::{text, word, Watch};
use crate::trigger::{Action, Event};
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::PoisonError;

/// `CUpti_nvtx_api_trace_cbid` values read here.
pub(super) mod cbid {
    pub(crate) const RANGE_START_A: u32 = 4;
    pub(crate) const RANGE_START_EX: u32 = 6;
    pub(crate) const RANGE_END: u32 = 7;
    pub(crate) const PUSH_A: u32 = 8;
    pub(crate) const PUSH_EX: u32 = 10;
    pub(crate) const POP: u32 = 11;
    pub(crate) const DOMAIN_RANGE_START_EX: u32 = 31;
    pub(crate) const DOMAIN_RANGE_END: u32 = 32;
    pub(crate) const DOMAIN_PUSH_EX: u32 = 33;
    pub(crate) const DOMAIN_POP: u32 = 34;
    pub(crate) const DOMAIN_REGISTER_STRING_A: u32 = 39;
    pub(crate) const ALL: [u32; 11] = [
        RANGE_START_A,
        RANGE_START_EX,
        RANGE_END,
        PUSH_A,
        PUSH_EX,
        POP,
        DOMAIN_RANGE_START_EX,
        DOMAIN_RANGE_END,
        DOMAIN_PUSH_EX,
        DOMAIN_POP,
        DOMAIN_REGISTER_STRING_A,
    ];
}

thread_local! {
    /// NVTX push depth per domain on this thread.
    static DEPTHS: RefCell<Vec<(usize, u32)>> = const { RefCell::new(Vec::new()) };
}

impl Watch {
    /// # Safety
    /// `data` is a `CUpti_NvtxData` for NVTX callback `cbid`.
    pub(super) unsafe fn judge_nvtx(&self, cbid: u32, data: *const u8) -> Action {
        // SAFETY: CUpti_NvtxData is three pointers.
        let (params, returned) = unsafe { (word(data, 8) as *const u8, word(data, 16) as *const u8) };
        if params.is_null() {
            return Action::None;
        }
        // SAFETY (whole match): each parameter block is the one NVTX documents for `cbid`.
        unsafe {
            match cbid {
                cbid::PUSH_A => self.push(0, text(word(params, 0)).map(Cow::Borrowed)),
                cbid::PUSH_EX => self.push(0, self.message(word(params, 0))),
                cbid::DOMAIN_PUSH_EX => self.push(word(params, 0) as usize, self.message(word(params, 8))),
                cbid::POP => self.pop(0),
                cbid::DOMAIN_POP => self.pop(word(params, 0) as usize),
                cbid::RANGE_START_A | cbid::RANGE_START_EX | cbid::DOMAIN_RANGE_START_EX if !returned.is_null() => {
                    let name = match cbid {
                        cbid::RANGE_START_A => text(word(params, 0)).map(Cow::Borrowed),
                        cbid::RANGE_START_EX => self.message(word(params, 0)),
                        _ => self.message(word(params, 8)),
                    };
                    let Some(name) = name.as_deref().and_then(|n| std::str::from_utf8(n).ok()) else {
                        return Action::None;
                    };
                    self.trigger.on(Event::RangeStart { name, id: word(returned, 0) })
                }
                cbid::RANGE_END => self.trigger.on(Event::RangeEnd { id: word(params, 0) }),
                cbid::DOMAIN_RANGE_END => self.trigger.on(Event::RangeEnd { id: word(params, 8) }),
                cbid::DOMAIN_REGISTER_STRING_A if !returned.is_null() => {
                    if let Some(name) = text(word(params, 8)) {
                        let handle = word(returned, 0) as usize;
                        let name = String::from_utf8_lossy(name).into_owned();
                        self.registered.lock().unwrap_or_else(PoisonError::into_inner).insert(handle, name);
                    }
                    Action::None
                }
                _ => Action::None,
            }
        }
    }

    /// The message of an `nvtxEventAttributes_t` at `address`: ASCII, or a registered string.
    ///
    /// # Safety
    /// `address` must be 0 or point to an `nvtxEventAttributes_t` whose `size` is right.
    unsafe fn message(&self, address: u64) -> Option<Cow<'_, [u8]>> {
        let attributes = address as *const u8;
        // SAFETY: `size` (u16 at 2) says how much of the structure exists.
        if attributes.is_null() || unsafe { attributes.add(2).cast::<u16>().read_unaligned() } < 48 {
            return None;
        }
        // SAFETY: the structure is at least 48 bytes.
        let (kind, value) = unsafe { (attributes.add(32).cast::<i32>().read_unaligned(), word(attributes, 40)) };
        match kind {
            // SAFETY: an ASCII message is a NUL-terminated string.
            1 => unsafe { text(value) }.map(Cow::Borrowed),
            3 => {
                let registered = self.registered.lock().unwrap_or_else(PoisonError::into_inner);
                Some(Cow::Owned(registered.get(&(value as usize))?.clone().into_bytes()))
            }
            _ => None,
        }
    }

    fn push(&self, domain: usize, name: Option<Cow<'_, [u8]>>) -> Action {
        let depth = DEPTHS.with(|depths| {
            let mut depths = depths.borrow_mut();
            match depths.iter_mut().find(|(d, _)| *d == domain) {
                Some((_, depth)) => {
                    *depth += 1;
                    *depth - 1
                }
                None => {
                    depths.push((domain, 1));
                    0
                }
            }
        });
        let Some(name) = name.as_deref().and_then(|n| std::str::from_utf8(n).ok()) else { return Action::None };
        self.trigger.on(Event::Push { name, stack: stack_key(domain), depth })
    }

    fn pop(&self, domain: usize) -> Action {
        let depth = DEPTHS.with(|depths| {
            let mut depths = depths.borrow_mut();
            depths.iter_mut().find(|(d, _)| *d == domain).map_or(0, |(_, depth)| {
                *depth = depth.saturating_sub(1);
                *depth
            })
        });
        self.trigger.on(Event::Pop { stack: stack_key(domain), depth })
    }
}

/// One key per thread and NVTX domain.
fn stack_key(domain: usize) -> u64 {
    // SAFETY: gettid has no preconditions.
    let thread = unsafe { libc::gettid() } as u64;
    thread.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ domain as u64
}
