//! A backend without hardware or tools, always compiled: the door, the sections and serve
//! planning are tested with it without any backend feature, here and in the CLI's tests.
//! Not a stable API.

use crate::recognition::{Certainty, Recognition};
use crate::vendor::{Detection, Vendor};
use crate::{DeviceOp, Importer, OpKind, Result, Timeline};
use std::path::Path;

/// An importer that takes files whose name ends in `suffix`, as sure as `certainty`, and
/// loads one kernel named after itself.
pub struct NameImporter {
    /// Its name, and the name of the one kernel it loads.
    pub name: &'static str,
    /// The end of the file names it takes.
    pub suffix: &'static str,
    /// How sure it says it is.
    pub certainty: Certainty,
}

impl Importer for NameImporter {
    fn name(&self) -> &'static str {
        self.name
    }
    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && path.to_string_lossy().ends_with(self.suffix)
    }
    fn recognize(&self, path: &Path) -> Option<Recognition> {
        self.recognizes(path).then(|| Recognition::new(self.certainty, format!("ends in {}", self.suffix)))
    }
    fn load(&self, path: &Path) -> Result<Timeline> {
        let mut timeline = Timeline::new(path.display().to_string());
        let name = timeline.intern(self.name);
        timeline.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, 0, 10));
        Ok(timeline)
    }
}

/// A backend named `.0` that detects nothing, runs nothing, and reads with one
/// [`NameImporter`] per `(name, suffix, certainty)` of `.1`.
pub struct TestVendor(pub &'static str, pub Vec<(&'static str, &'static str, Certainty)>);

impl Vendor for TestVendor {
    fn id(&self) -> &'static str {
        self.0
    }
    fn name(&self) -> &'static str {
        self.0
    }
    fn detect(&self) -> Detection {
        Detection::new(self.0, self.0)
    }
    fn importers(&self) -> Vec<Box<dyn Importer>> {
        self.1
            .iter()
            .map(|&(name, suffix, certainty)| Box::new(NameImporter { name, suffix, certainty }) as Box<dyn Importer>)
            .collect()
    }
}

/// A breakdown tool that runs nothing: its plan wraps the command in `fake-tool` with the
/// window control it is given, so what a caller does with each [`crate::WindowControl`] (serve
/// planning, breakdown's fall-backs) is tested without a vendor's tool.
pub struct FakeTool(pub crate::WindowControl);

impl crate::BreakdownTool for FakeTool {
    fn name(&self) -> &'static str {
        "fake-tool"
    }
    fn check(&self) -> Result<()> {
        Ok(())
    }
    fn plan(&self, request: &crate::CaptureRequest) -> Result<crate::CapturePlan> {
        let mut argv: Vec<std::ffi::OsString> = vec!["fake-tool".into(), "--window".into()];
        argv.push(request.window.as_millis().to_string().into());
        argv.extend(request.command.iter().cloned());
        let mut steps = request.warmup_steps();
        steps.push(crate::run_plan::RunPlan::new("capture", argv, request.out_dir.join("capture.log")));
        Ok(crate::CapturePlan {
            steps,
            artifacts: vec![crate::ExpectedArtifact { path: request.out_dir.join("fake.trace"), min_bytes: 1 }],
            how_to_open: "prof analyze it".to_owned(),
            control: self.0.clone(),
            ..crate::CapturePlan::default()
        })
    }
    fn load(&self, artifacts: &[std::path::PathBuf]) -> Result<Timeline> {
        let source = artifacts.first().map(|p| p.display().to_string()).unwrap_or_default();
        Ok(Timeline::new(source))
    }
    fn recognizes(&self, _: &Path) -> bool {
        false
    }
}
