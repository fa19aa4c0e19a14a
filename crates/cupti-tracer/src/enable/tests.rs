use super::*;
use crate::cbid::{DRIVER_LAUNCH, RUNTIME_LAUNCH};
use crate::format::domain;
use std::cell::RefCell;

/// Records every switch; `filter` says whether per-function switches exist, `refuse` which
/// kinds and cbids fail.
#[derive(Default)]
struct Fake {
    filter: bool,
    refuse_kinds: Vec<u32>,
    refuse_ids: Vec<u32>,
    kinds_on: RefCell<Vec<u32>>,
    kinds_off: RefCell<Vec<u32>>,
    api_on: RefCell<Vec<(u8, u32)>>,
    api_off: RefCell<Vec<(u8, u32)>>,
}

fn refused() -> TracerError {
    TracerError::Call { call: "fake", code: 1, message: "refused".into() }
}

impl Switches for Fake {
    fn enable_kind(&self, kind: u32) -> Result<(), TracerError> {
        if self.refuse_kinds.contains(&kind) {
            return Err(refused());
        }
        self.kinds_on.borrow_mut().push(kind);
        Ok(())
    }
    fn disable_kind(&self, kind: u32) {
        self.kinds_off.borrow_mut().push(kind);
    }
    fn has_api_filter(&self) -> bool {
        self.filter
    }
    fn enable_api(&self, api_domain: u8, cbid: u32, on: bool) -> Result<(), TracerError> {
        if self.refuse_ids.contains(&cbid) || !self.filter {
            return Err(refused());
        }
        let list = if on { &self.api_on } else { &self.api_off };
        list.borrow_mut().push((api_domain, cbid));
        Ok(())
    }
}

fn run(fake: &Fake, mode: ApiMode) -> (Enabled, Vec<String>) {
    let mut warnings = Vec::new();
    let on = enable(fake, mode, &mut |w| warnings.push(w)).expect("kernels enable");
    (on, warnings)
}

// CUpti_ActivityKind values: MEMCPY 1, MEMSET 2, DRIVER 4, RUNTIME 5, CONCURRENT_KERNEL 10.
#[test]
fn none_enables_no_api_kind_and_no_api_function() {
    let fake = Fake { filter: true, ..Fake::default() };
    let (on, warnings) = run(&fake, ApiMode::None);
    assert_eq!(*fake.kinds_on.borrow(), [10, 1, 2]);
    assert!(fake.api_on.borrow().is_empty());
    assert_eq!((on.api, on.kinds), (ApiCollection::Off, (1 << 10) | (1 << 1) | (1 << 2)));
    assert!(warnings.is_empty());
    disable(&fake, &on);
    assert_eq!(*fake.kinds_off.borrow(), [1, 2, 10]);
}

#[test]
fn launch_switches_on_exactly_the_table_and_no_api_kind() {
    let fake = Fake { filter: true, ..Fake::default() };
    let (on, warnings) = run(&fake, ApiMode::Launch);
    assert_eq!(*fake.kinds_on.borrow(), [10, 1, 2], "RUNTIME/DRIVER would override the per-function switches");
    let mut expected: Vec<(u8, u32)> = RUNTIME_LAUNCH.iter().map(|&(id, _)| (domain::RUNTIME, id)).collect();
    expected.extend(DRIVER_LAUNCH.iter().map(|&(id, _)| (domain::DRIVER, id)));
    assert_eq!(*fake.api_on.borrow(), expected);
    assert!(
        fake.api_on.borrow().contains(&(domain::RUNTIME, 211)) && fake.api_on.borrow().contains(&(domain::DRIVER, 652))
    );
    assert!(!fake.api_on.borrow().contains(&(domain::RUNTIME, 17)), "cudaGetDevice is not recorded");
    assert_eq!((on.api, on.api_refused), (ApiCollection::PerCallback, 0));
    assert!(warnings.is_empty());
    disable(&fake, &on);
    assert_eq!(*fake.api_off.borrow(), expected);
}

#[test]
fn launch_without_the_filter_collects_everything_and_drops_while_draining() {
    let fake = Fake::default();
    let (on, warnings) = run(&fake, ApiMode::Launch);
    assert_eq!(*fake.kinds_on.borrow(), [10, 1, 2, 5, 4]);
    assert_eq!(on.api, ApiCollection::Filtered);
    assert!(fake.api_on.borrow().is_empty() && warnings.is_empty());

    let refusing = Fake { filter: true, refuse_ids: (0..1000).collect(), ..Fake::default() };
    let (on, warnings) = run(&refusing, ApiMode::Launch);
    assert_eq!((on.api, on.api_refused), (ApiCollection::Filtered, 235));
    assert_eq!(warnings.len(), 1, "{warnings:?}");

    let old = Fake { filter: true, refuse_ids: vec![796, 797, 798, 799, 800], ..Fake::default() };
    let (on, warnings) = run(&old, ApiMode::Launch);
    assert_eq!((on.api, on.api_refused, on.api_ids.len()), (ApiCollection::PerCallback, 5, 230));
    assert!(warnings.is_empty());
}

#[test]
fn all_enables_both_api_kinds_and_refusals_only_warn() {
    let fake = Fake { filter: true, ..Fake::default() };
    let (on, _) = run(&fake, ApiMode::All);
    assert_eq!(*fake.kinds_on.borrow(), [10, 1, 2, 5, 4]);
    assert_eq!(on.api, ApiCollection::Everything);
    assert!(fake.api_on.borrow().is_empty());

    let partial = Fake { refuse_kinds: vec![2, 4], ..Fake::default() };
    let (on, warnings) = run(&partial, ApiMode::All);
    assert_eq!((on.kinds, on.api), ((1 << 10) | (1 << 1) | (1 << 5), ApiCollection::Everything));
    assert_eq!(warnings.len(), 2);
    assert!(
        warnings[0].ends_with("memory sets are not traced") && warnings[1].ends_with("driver API calls are not traced")
    );

    let no_kernels = Fake { refuse_kinds: vec![10], ..Fake::default() };
    assert!(enable(&no_kernels, ApiMode::All, &mut |_| {}).is_err());
    assert!(no_kernels.kinds_on.borrow().is_empty());
}

#[test]
fn api_records_pause_and_resume_without_touching_device_records() {
    let fake = Fake { filter: true, ..Fake::default() };
    let (on, _) = run(&fake, ApiMode::Launch);
    let launch_ids = on.api_ids.len();
    set_api_active(&fake, &on, false);
    assert_eq!(fake.api_off.borrow().len(), launch_ids);
    assert!(fake.kinds_off.borrow().is_empty(), "kernels stay on");
    set_api_active(&fake, &on, true);
    assert_eq!(fake.api_on.borrow().len(), 2 * launch_ids);

    let all = Fake { filter: true, ..Fake::default() };
    let (on, _) = run(&all, ApiMode::All);
    set_api_active(&all, &on, false);
    assert_eq!(*all.kinds_off.borrow(), [5, 4], "RUNTIME and DRIVER only");
    set_api_active(&all, &on, true);
    assert_eq!(*all.kinds_on.borrow(), [10, 1, 2, 5, 4, 5, 4]);
}
