fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let t = prof_backend_nvidia::cupti_trace::load_paths(&[path]).unwrap();
    let phases = prof_core::phases::find_phases(&t);
    let s = phases.get(prof_core::phases::PhaseKind::Steady).unwrap();
    let t = t.window(s.start_ns, s.end_ns);
    let fams = prof_core::Families::builtin();
    let summary = prof_core::summarize_kernels(&t, &fams);
    let fm = summary.family_map();
    let steps = prof_core::diagnosis::steps::segment(&t).unwrap();
    let mut total = vec![0u64; steps.count];
    let mut mm = vec![0u64; steps.count];
    let mut attn = vec![0u64; steps.count];
    let mut blocks = vec![0u64; steps.count];
    for (op, st) in t.ops.iter().zip(&steps.step_of) {
        let Some(st) = st else { continue };
        total[*st] += op.dur_ns;
        if let Some(g) = op.details.as_ref().and_then(|d| d.grid) {
            blocks[*st] += g.iter().map(|&x| x as u64).product::<u64>();
        }
        let f = fm.get(&op.name).copied();
        if f.is_some_and(|f| f.is_matmul()) {
            mm[*st] += op.dur_ns;
        }
        if f == Some(prof_core::Family::Attention) {
            attn[*st] += op.dur_ns;
        }
    }
    for i in 0..steps.count {
        println!("{i} {} {} {} {}", total[i], mm[i], attn[i], blocks[i]);
    }
}
