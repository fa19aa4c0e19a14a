fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let t = prof_backend_nvidia::cupti_trace::load_paths(&[path]).unwrap();
    let names: Vec<_> = {
        let mut ops: Vec<_> = t.ops.iter().filter(|o| o.device == 0 && o.stream == 7).collect();
        ops.sort_by_key(|o| (o.start_ns, o.end_ns()));
        ops.iter().map(|o| (o.name, o.dur_ns)).collect()
    };
    let (n, d): (Vec<_>, Vec<_>) = names.into_iter().unzip();
    println!("{:?}", prof_core::analysis::layers::repeats(&n, &d).map(|r| (r.period, r.regions.len(), r.inner_period)));
    println!("{:?}", prof_core::diagnosis::steps::sequence_steps(&t).map(|s| (s.source, s.spans.len())));
}
