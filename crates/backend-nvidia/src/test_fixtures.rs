//! Test support: reading the recorded fixtures under the workspace's `tests/fixtures/nvidia`.

/// The text of `tests/fixtures/nvidia/<path>`.
pub fn fixture(path: &str) -> String {
    let full = format!("{}/../../tests/fixtures/nvidia/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The body of one `# <title>` section of the nvidia_gpu_exporter H100 bundle: the raw tool
/// output between the section's closing `####` line and the next blank line.
pub fn bundle_section(title: &str) -> String {
    let text = fixture("smi/bundles/nvgpuexp_linux-x86_64__nvidia-h100-mig__590.48.01.txt");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| *l == format!("# {title}")).unwrap_or_else(|| panic!("no section {title}"));
    let body_start = start + lines[start..].iter().position(|l| l.starts_with("####")).expect("section rule") + 1;
    lines[body_start..].iter().take_while(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect()
}
