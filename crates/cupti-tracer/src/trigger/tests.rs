use super::*;

fn launch(name: &str) -> Event<'_> {
    Event::Launch { symbol: Some(name.as_bytes()) }
}

#[test]
fn profiler_start_opens_and_the_next_stop_closes_once() {
    let t = Trigger::new(StartOn::ProfilerApi);
    assert_eq!(t.on(Event::ProfilerStop), Action::None, "a stop before any start changes nothing");
    assert_eq!(t.on(launch("k")), Action::None);
    assert_eq!(t.on(Event::ProfilerStart), Action::Open);
    assert_eq!(t.on(Event::ProfilerStart), Action::None);
    assert!(!t.done());
    assert_eq!(t.on(Event::ProfilerStop), Action::Close);
    assert!(t.done());
    assert_eq!(t.on(Event::ProfilerStart), Action::None, "only the first range is captured");
}

#[test]
fn the_nth_matching_launch_opens_the_window() {
    let t = Trigger::new(StartOn::Kernel { pattern: "gemm".into(), nth: 3 });
    let opened: Vec<Action> = ["_Z4gemmv", "elementwise", "sm90_xmma_gemm_bf16", "reduce", "cutlass_gemm", "gemm"]
        .into_iter()
        .map(|name| t.on(launch(name)))
        .collect();
    assert_eq!(opened, [Action::None, Action::None, Action::None, Action::None, Action::Open, Action::None]);
    assert!(t.done());
    assert_eq!(t.on(Event::Launch { symbol: None }), Action::None);
    let unnamed = Trigger::new(StartOn::Kernel { pattern: "x".into(), nth: 1 });
    assert_eq!(unnamed.on(Event::Launch { symbol: None }), Action::None, "a graph launch has no name");
    assert!(unnamed.pending().contains("0 launches"), "{}", unnamed.pending());
}

/// Drives `auto` with `blocks` of AUTO_BLOCK launches, each block preceded by its copies;
/// returns the block in which the window opened.
fn auto_opens_in(blocks: &[u64]) -> Option<usize> {
    let t = Trigger::new(StartOn::Auto);
    for (index, &bytes) in blocks.iter().enumerate() {
        assert_eq!(t.on(Event::HostToDevice { bytes }), Action::None);
        for launch_index in 0..AUTO_BLOCK {
            if t.on(Event::Launch { symbol: None }) == Action::Open {
                assert_eq!(launch_index, AUTO_BLOCK - 1, "it opens on a block boundary");
                return Some(index);
            }
        }
    }
    None
}

#[test]
fn auto_waits_for_the_upload_to_end_and_the_copies_to_settle() {
    const MIB: u64 = 1 << 20;
    // Weights (2 GiB) go up before and with the first launches, then decode copies a few bytes.
    assert_eq!(auto_opens_in(&[2048 * MIB, 300 * MIB, 8, 8, 8, 8]), Some(4));
    // Nothing is uploaded (weights made on the device): three quiet blocks are enough.
    assert_eq!(auto_opens_in(&[0, 0, 0, 0]), Some(2));
    // A training loop uploads a 64 MiB batch per block, after 1 GiB of weights.
    assert_eq!(auto_opens_in(&[1024 * MIB, 64 * MIB, 70 * MIB, 60 * MIB]), Some(3));
    // Batches that keep growing never settle.
    assert_eq!(auto_opens_in(&[32 * MIB, 64 * MIB, 128 * MIB, 256 * MIB, 512 * MIB]), None);
    let t = Trigger::new(StartOn::Auto);
    t.on(Event::Launch { symbol: None });
    assert!(t.pending().starts_with("1 launches"), "{}", t.pending());
}

#[test]
fn an_nvtx_push_range_closes_at_its_own_pop() {
    let t = Trigger::new(StartOn::Nvtx("ProfilerStep#2".into()));
    let push = |name, stack, depth| Event::Push { name, stack, depth };
    assert_eq!(t.on(push("ProfilerStep#1", 1, 0)), Action::None);
    assert_eq!(t.on(Event::Pop { stack: 1, depth: 0 }), Action::None);
    assert_eq!(t.on(push("ProfilerStep#2", 1, 0)), Action::Open);
    assert_eq!(t.on(push("aten::mm", 1, 1)), Action::None);
    assert_eq!(t.on(Event::Pop { stack: 1, depth: 1 }), Action::None, "an inner range ends");
    assert_eq!(t.on(Event::Pop { stack: 2, depth: 0 }), Action::None, "another thread's range ends");
    assert_eq!(t.on(Event::Pop { stack: 1, depth: 0 }), Action::Close);
    assert!(t.done());
}

#[test]
fn an_nvtx_start_end_range_closes_at_its_id_and_a_star_matches_a_prefix() {
    let t = Trigger::new(StartOn::Nvtx("decode*".into()));
    assert_eq!(t.on(Event::RangeStart { name: "prefill", id: 1 }), Action::None);
    assert_eq!(t.on(Event::RangeStart { name: "decode step 7", id: 2 }), Action::Open);
    assert_eq!(t.on(Event::RangeEnd { id: 1 }), Action::None);
    assert_eq!(t.on(Event::RangeEnd { id: 2 }), Action::Close);
    assert!(matches("step", "step") && !matches("step 2", "step") && matches("step 2", "step*"));
    assert!(Trigger::new(StartOn::Nvtx("x".into())).pending().contains("NVTX_INJECTION64_PATH"));
}

#[test]
fn auto_opens_at_the_programs_own_profiler_start_and_closes_at_its_stop() {
    let t = Trigger::new(StartOn::Auto);
    assert_eq!(t.on(Event::HostToDevice { bytes: 4 << 30 }), Action::None);
    assert_eq!(t.on(launch("load")), Action::None);
    assert_eq!(t.on(Event::ProfilerStop), Action::None, "a stop before any start changes nothing");
    assert_eq!(t.on(Event::ProfilerStart), Action::Open);
    assert_eq!(t.opener(), Some(Opener::Profiler));
    assert!(!t.done(), "the program's stop is still to come");
    assert_eq!(t.on(Event::ProfilerStop), Action::Close);
    assert!(t.done());
}

#[test]
fn auto_opens_at_the_second_step_range_not_at_the_first() {
    let t = Trigger::new(StartOn::Auto);
    let push = |name| Event::Push { name, stack: 1, depth: 0 };
    assert_eq!(t.on(push("load_weights")), Action::None);
    assert_eq!(t.on(push("ProfilerStep#0")), Action::None, "the first step compiles and autotunes");
    assert_eq!(t.on(push("aten::mm")), Action::None);
    assert!(t.pending().contains("began 1 of the 2 step ranges"), "{}", t.pending());
    assert_eq!(t.on(Event::RangeStart { name: "ProfilerStep#1", id: 9 }), Action::Open);
    assert_eq!(t.opener(), Some(Opener::Step));
    assert!(t.done(), "a step-opened window is closed by its time, not by the range");
    assert_eq!(t.on(Event::ProfilerStart), Action::None, "once open, nothing else opens it");
}

#[test]
fn a_window_opened_at_the_end_of_the_load_ignores_later_marks() {
    let t = Trigger::new(StartOn::Auto);
    let mut opened = None;
    for index in 0..AUTO_BLOCK * AUTO_SETTLED as u64 {
        if t.on(launch("k")) == Action::Open {
            opened = Some(index);
        }
    }
    assert_eq!(opened, Some(AUTO_BLOCK * AUTO_SETTLED as u64 - 1));
    assert_eq!(t.opener(), Some(Opener::Load));
    assert!(t.done());
    assert_eq!(t.on(Event::ProfilerStop), Action::None, "a stop closes only what a start opened");
}

#[test]
fn step_ranges_are_named_like_steps() {
    for name in
        ["ProfilerStep#3", "step", "Step 12", "train_step", "training_step_4", "iteration 7", "iter:3", "STEP-2"]
    {
        assert!(is_step_range(name), "{name}");
    }
    for name in ["stepper", "iterator", "aten::step", "optimizer.step", "load", "", "steps", "prefill"] {
        assert!(!is_step_range(name), "{name}");
    }
}
