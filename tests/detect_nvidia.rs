//! End-to-end `prof detect --json` for NVIDIA: fake `nvidia-smi`, `ncu` and `nsys`
//! (tests/fakes/nvidia) replay outputs recorded on the H200 (tests/fixtures/nvidia), a temp
//! `CUDA_HOME` holds a stand-in CUPTI, and NVML is forced absent.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "support/mod.rs"]
mod support;

use support::{fakes, hermetic, path_with, success_json, Scratch};

const DRIVER_INSTALL: &str =
    "sudo apt-get install -y nvidia-driver-580 (or your distribution's NVIDIA driver package; NVML ships with the driver)";
const NSYS_INSTALL: &str = "sudo apt-get install -y nsight-systems-cli (from NVIDIA's CUDA apt repository)";
const NCU_INSTALL: &str = "sudo apt-get install -y cuda-nsight-compute-13-0 (from NVIDIA's CUDA apt repository)";
const CUPTI_INSTALL: &str = "sudo apt-get install -y cuda-cupti-13-0  (or: pip install nvidia-cuda-cupti)";

/// A scratch directory with `cuda/lib64/libcupti.so -> libcupti.so.2025.3.1` and an empty dir.
struct Sandbox {
    root: Scratch,
}

impl Sandbox {
    fn new(name: &str) -> Self {
        let root = Scratch::new(&format!("detect-nvidia-{name}"));
        let lib = root.path().join("cuda/lib64");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::create_dir_all(root.path().join("empty")).unwrap();
        std::fs::write(lib.join("libcupti.so.2025.3.1"), b"").unwrap();
        std::os::unix::fs::symlink("libcupti.so.2025.3.1", lib.join("libcupti.so")).unwrap();
        Self { root }
    }

    fn cuda_home(&self) -> PathBuf {
        self.root.path().join("cuda")
    }

    fn empty(&self) -> PathBuf {
        self.root.path().join("empty")
    }

    /// Runs `prof detect --json` with `path` as PATH and `env` on top; returns the NVIDIA
    /// entry and the whole document.
    fn detect(&self, path: &str, env: &[(&str, &str)]) -> (Value, Value) {
        let out = hermetic(path)
            .args(["detect", "--json"])
            .env("CUDA_HOME", self.cuda_home())
            .env("LD_LIBRARY_PATH", self.empty())
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let doc = success_json(&out);
        assert_eq!(doc["schema"], "prof.detect.v1");
        let nvidia = doc["vendors"].as_array().unwrap().iter().find(|v| v["vendor"] == "nvidia").unwrap().clone();
        (nvidia, doc)
    }
}

fn fake_path() -> String {
    path_with(&fakes("nvidia"))
}

fn tool<'a>(nvidia: &'a Value, name: &str) -> &'a Value {
    nvidia["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

fn problems(nvidia: &Value) -> Vec<String> {
    nvidia["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect()
}

fn fake(name: &str) -> String {
    fakes("nvidia").join(name).to_string_lossy().into_owned()
}

#[test]
fn h200_recorded_outputs() {
    let sandbox = Sandbox::new("h200");
    let (nvidia, _) = sandbox.detect(&fake_path(), &[]);
    assert_eq!(nvidia["present"], true);
    assert_eq!(nvidia["driver_version"], "580.159.04");
    let devices = nvidia["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{nvidia}");
    assert_eq!(devices[0]["index"], 0);
    assert_eq!(devices[0]["name"], "NVIDIA H200");
    assert_eq!(devices[0]["uuid"], "GPU-b760cc64-42ae-7d9d-86af-076d5fbe517c");
    assert_eq!(devices[0]["bus_id"], "00000000:00:06.0");
    assert_eq!(devices[0]["memory_total_mib"], 143771);
    assert_eq!(devices[0]["architecture"], "9.0");
    assert!(problems(&nvidia).is_empty(), "{nvidia}");

    let smi = tool(&nvidia, "nvidia-smi");
    assert_eq!(
        (&smi["present"], &smi["path"], &smi["version"]),
        (&Value::from(true), &fake("nvidia-smi").into(), &"580.159.04".into())
    );
    let ncu = tool(&nvidia, "ncu");
    assert_eq!(
        (&ncu["present"], &ncu["path"], &ncu["version"]),
        (&Value::from(true), &fake("ncu").into(), &"2025.3.1.0".into())
    );
    let nsys = tool(&nvidia, "nsys");
    assert_eq!(
        (&nsys["present"], &nsys["path"], &nsys["version"]),
        (&Value::from(true), &fake("nsys").into(), &"2025.3.1.0".into())
    );
    assert_eq!(nsys["note"], Value::Null, "an nsys on PATH is not the Nsight Compute copy");
    let cupti = tool(&nvidia, "libcupti");
    assert_eq!(
        (&cupti["present"], &cupti["kind"], &cupti["version"]),
        (&Value::from(true), &"library".into(), &"2025.3.1".into())
    );
    assert_eq!(cupti["path"], sandbox.cuda_home().join("lib64/libcupti.so").to_string_lossy().as_ref());
    let nvml = tool(&nvidia, "nvml");
    assert_eq!(
        (&nvml["present"], &nvml["kind"], &nvml["install"]),
        (&Value::from(false), &"library".into(), &DRIVER_INSTALL.into())
    );
    assert!(nvml["note"].as_str().unwrap().contains("/nonexistent/libnvidia-ml.so.1"), "{nvml}");
}

#[test]
fn old_driver_falls_back_to_xml() {
    let sandbox = Sandbox::new("old-driver");
    let (nvidia, _) = sandbox.detect(&fake_path(), &[("FAKE_NVIDIA_SMI", "old-driver")]);
    assert_eq!(nvidia["present"], true);
    assert_eq!(nvidia["driver_version"], "580.159.04");
    let devices = nvidia["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{nvidia}");
    assert_eq!(devices[0]["name"], "NVIDIA H200");
    assert_eq!(devices[0]["uuid"], "GPU-ff7eaf04-c0af-69a7-90df-53066e9f15ea", "from nvidia-smi-q.xml");
    assert_eq!(devices[0]["memory_total_mib"], 143771);
    assert_eq!(devices[0]["architecture"], "Hopper", "the XML has no compute capability");
    assert!(problems(&nvidia).is_empty(), "a rejected query with a working fallback is no problem: {nvidia}");
}

#[test]
fn garbage_from_nvidia_smi_is_a_problem_not_a_failure() {
    let sandbox = Sandbox::new("garbage");
    let (nvidia, doc) = sandbox.detect(&fake_path(), &[("FAKE_NVIDIA_SMI", "garbage")]);
    assert_eq!(nvidia["present"], true, "nvidia-smi is there, even if broken");
    assert!(nvidia["devices"].as_array().unwrap().is_empty());
    let problems = problems(&nvidia);
    assert!(
        problems.iter().any(|p| p.starts_with("nvidia-smi --query-gpu: unexpected output at line 1:")
            && p.contains("this is not nvidia-smi output")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with("nvidia-smi -q -x: unexpected output at line 1:")
            && p.contains("this is not nvidia-smi output")),
        "{problems:?}"
    );
    assert_eq!(tool(&nvidia, "ncu")["version"], "2025.3.1.0", "the rest of detection went on");
    let ids: Vec<&str> = doc["vendors"].as_array().unwrap().iter().map(|v| v["vendor"].as_str().unwrap()).collect();
    assert!(ids.contains(&"amd") && ids.contains(&"ascend"), "{ids:?}");
}

#[test]
fn hanging_tool_becomes_a_problem() {
    let sandbox = Sandbox::new("hang");
    let started = Instant::now();
    let (nvidia, _) = sandbox.detect(&fake_path(), &[("FAKE_NCU", "hang")]);
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    let ncu = tool(&nvidia, "ncu");
    assert_eq!((&ncu["present"], &ncu["version"]), (&Value::from(true), &Value::Null));
    let problems = problems(&nvidia);
    assert!(problems.iter().any(|p| p == "ncu --version did not answer within 3s; version unknown"), "{problems:?}");
    assert_eq!(nvidia["devices"].as_array().unwrap().len(), 1);
}

#[test]
fn empty_path_reports_everything_absent_with_install_lines() {
    let sandbox = Sandbox::new("empty");
    std::fs::remove_dir_all(sandbox.cuda_home()).unwrap();
    let (nvidia, _) = sandbox.detect(&sandbox.empty().to_string_lossy(), &[]);
    assert_eq!(nvidia["present"], false);
    assert!(nvidia["devices"].as_array().unwrap().is_empty());
    assert_eq!(nvidia["driver_version"], Value::Null);
    // The fixed install locations prof also searches; a host that has them finds the tool there.
    let installed_here = |dirs: &[&str]| dirs.iter().any(|d| Path::new(d).exists());
    let expected = [
        ("nvidia-smi", DRIVER_INSTALL, false),
        ("nvml", DRIVER_INSTALL, false),
        ("nsys", NSYS_INSTALL, installed_here(&["/usr/local/cuda/bin/nsys", "/opt/nvidia"])),
        ("ncu", NCU_INSTALL, installed_here(&["/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute"])),
        ("libcupti", CUPTI_INSTALL, installed_here(&["/usr/local/cuda"])),
    ];
    for (name, install, host_has_it) in expected {
        let status = tool(&nvidia, name);
        assert_eq!(status["install"], install, "{status}");
        if host_has_it {
            eprintln!("{name}: this host has it in a default location, not asserting absence");
        } else {
            assert_eq!(status["present"], false, "{status}");
            assert_eq!(status["path"], Value::Null, "{status}");
        }
    }
}
