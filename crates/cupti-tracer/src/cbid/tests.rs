use super::*;

/// The documented rule, written again from the module docs, on a header name.
fn runtime_rule(name: &str) -> bool {
    let launch = ["cudaLaunch", "__cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset"];
    let stem = name.rsplit_once("_v").map_or(name, |(stem, _)| stem);
    launch.iter().any(|p| name.starts_with(p)) || stem.trim_end_matches("_ptsz").ends_with("Synchronize")
}

fn driver_rule(name: &str) -> bool {
    let launch = ["cuLaunch", "cuGraphLaunch", "cuMemcpy", "cu64Memcpy", "cuMemset", "cu64Memset"];
    let stem = name.trim_end_matches("_ptsz").trim_end_matches("_v2");
    launch.iter().any(|p| name.starts_with(p)) || stem.ends_with("Synchronize")
}

#[test]
fn the_table_holds_the_header_values_of_the_named_calls() {
    // Read off cupti_runtime_cbid.h / cupti_driver_cbid.h of the 13.0.85 wheel with grep.
    let runtime = [
        ("cudaLaunchKernel_v7000", 211),
        ("cudaLaunchKernelExC_v11060", 430),
        ("cudaGraphLaunch_v10000", 311),
        ("cudaMemcpyAsync_v3020", 41),
        ("cudaMemsetAsync_v3020", 51),
        ("cudaStreamSynchronize_v3020", 131),
        ("cudaEventSynchronize_v3020", 137),
        ("cudaDeviceSynchronize_v3020", 165),
    ];
    for (name, id) in runtime {
        assert!(RUNTIME_LAUNCH.contains(&(id, name)), "{name} = {id}");
        assert!(is_launch(domain::RUNTIME, id), "{name}");
    }
    let driver = [
        ("cuLaunchKernel", 307),
        ("cuLaunchKernelEx", 652),
        ("cuGraphLaunch", 514),
        ("cuMemcpyHtoDAsync_v2", 277),
        ("cuStreamSynchronize", 126),
        ("cuCtxSynchronize_v2", 800),
    ];
    for (name, id) in driver {
        assert!(DRIVER_LAUNCH.contains(&(id, name)), "{name} = {id}");
        assert!(is_launch(domain::DRIVER, id), "{name}");
    }
    // cudaGetDevice_v3020 = 17, the call PyTorch makes most; cudaStreamWaitEvent_v3020 = 132.
    assert!(!is_launch(domain::RUNTIME, 17) && !is_launch(domain::RUNTIME, 132));
    // cuMemSetAccess = 553 and cudaMemSetMemPool_v13000 = 520 are not memsets.
    assert!(!is_launch(domain::DRIVER, 553) && !is_launch(domain::RUNTIME, 520));
}

#[test]
fn every_entry_follows_the_rule_once_and_in_range() {
    for (table, rule, size) in [
        (&RUNTIME_LAUNCH[..], runtime_rule as fn(&str) -> bool, RUNTIME_CBID_SIZE),
        (&DRIVER_LAUNCH[..], driver_rule, DRIVER_CBID_SIZE),
    ] {
        for pair in table.windows(2) {
            assert!(pair[0].0 < pair[1].0, "ids ascend without repeats: {pair:?}");
        }
        for &(id, name) in table {
            assert!(rule(name), "{name} does not launch or move work");
            assert!(id > 0 && id < size, "{name} = {id}");
        }
    }
    assert_eq!((RUNTIME_LAUNCH.len(), DRIVER_LAUNCH.len()), (86, 149));
}

#[test]
fn the_bit_test_selects_exactly_the_table() {
    for (api_domain, table) in [(domain::RUNTIME, &RUNTIME_LAUNCH[..]), (domain::DRIVER, &DRIVER_LAUNCH[..])] {
        let selected: Vec<u32> = (0..2048).filter(|&id| is_launch(api_domain, id)).collect();
        let listed: Vec<u32> = table.iter().map(|&(id, _)| id).collect();
        assert_eq!(selected, listed);
    }
    assert!(!is_launch(0, 211) && !is_launch(3, 211) && !is_launch(domain::RUNTIME, u32::MAX));
    assert_eq!(launch_set().count(), 86 + 149);
    assert_eq!(launch_set().next(), Some((domain::RUNTIME, 13)));
    assert_eq!(launch_set().last(), Some((domain::DRIVER, 800)));
}

/// The whole table against the real headers, which NVIDIA's license keeps out of this
/// repository: `PROF_CUPTI_INCLUDE=/tmp/cupti-wheel/nvidia/cu13/include cargo test -p
/// prof-cupti-tracer -- --ignored` after downloading and unzipping the 13.0.85 wheel.
#[test]
#[ignore = "needs CUDA 13.0's CUPTI headers in PROF_CUPTI_INCLUDE"]
fn the_table_is_every_matching_entry_of_the_cuda_13_headers() {
    let dir = std::path::PathBuf::from(std::env::var_os("PROF_CUPTI_INCLUDE").expect("set PROF_CUPTI_INCLUDE"));
    let parse = |file: &str, prefix: &str, rule: fn(&str) -> bool| -> Vec<(u32, String)> {
        let text = std::fs::read_to_string(dir.join(file)).expect("header");
        text.lines()
            .filter_map(|line| {
                let (name, value) = line.trim().strip_prefix(prefix)?.split_once('=')?;
                let id = value.trim().trim_end_matches(',').parse().ok()?;
                Some((id, name.trim().to_owned()))
            })
            .filter(|(_, name)| rule(name))
            .collect()
    };
    let owned = |t: &[(u32, &str)]| t.iter().map(|&(id, n)| (id, n.to_owned())).collect::<Vec<_>>();
    let runtime = parse("cupti_runtime_cbid.h", "CUPTI_RUNTIME_TRACE_CBID_", runtime_rule);
    let driver = parse("cupti_driver_cbid.h", "CUPTI_DRIVER_TRACE_CBID_", driver_rule);
    assert_eq!(runtime, owned(&RUNTIME_LAUNCH));
    assert_eq!(driver, owned(&DRIVER_LAUNCH));
}
