//! What the analyses of one window share: the family table, the kernel summary, the artifact's
//! path and the backends, and the intermediate results three of them read (stream roles,
//! launch index, idle gaps, launch statistics), each worked out once by the first that asks.

use crate::analysis::gaps::DeviceGaps;
use crate::analysis::launch::LaunchStats;
use crate::analysis::streams::DeviceStreams;
use crate::{Families, KernelSummary, Registry, Timeline};
use prof_timeline::launch_index::LaunchIndex;
use std::path::Path;
use std::sync::OnceLock;

/// What every analysis may use besides the timeline.
pub struct Context<'a> {
    /// The family table in use.
    pub families: &'a Families,
    /// The kernel summary already computed.
    pub summary: &'a KernelSummary,
    /// The artifact's path, when it came from a file (the vendor's tables beside it).
    pub path: Option<&'a Path>,
    /// The backends, for the vendor tables read beside the artifact.
    pub registry: &'a Registry,
    roles: OnceLock<Vec<DeviceStreams>>,
    launches: OnceLock<LaunchIndex>,
    gaps: OnceLock<Vec<DeviceGaps>>,
    launch: OnceLock<Option<LaunchStats>>,
}

impl<'a> Context<'a> {
    /// The context of one timeline's analyses; `roles` are its stream roles where the phases
    /// already worked them out (empty: worked out by the first analysis that asks).
    pub fn new(
        families: &'a Families,
        summary: &'a KernelSummary,
        path: Option<&'a Path>,
        registry: &'a Registry,
        roles: OnceLock<Vec<DeviceStreams>>,
    ) -> Self {
        Self {
            families,
            summary,
            path,
            registry,
            roles,
            launches: Default::default(),
            gaps: Default::default(),
            launch: Default::default(),
        }
    }

    /// The stream roles of `timeline` (the timeline the analyses read), once.
    pub fn stream_roles(&self, timeline: &Timeline) -> &[DeviceStreams] {
        self.roles.get_or_init(|| crate::analysis::streams::stream_roles(timeline, self.families))
    }

    /// [`Timeline::launch_index`] of `timeline`, once.
    pub fn launch_index(&self, timeline: &Timeline) -> &LaunchIndex {
        self.launches.get_or_init(|| timeline.launch_index())
    }

    /// The idle gaps of `timeline`, once.
    pub fn idle_gaps(&self, timeline: &Timeline) -> &[DeviceGaps] {
        self.gaps.get_or_init(|| {
            crate::analysis::gaps::idle_gaps_of_roles(
                timeline,
                self.stream_roles(timeline),
                self.launch_index(timeline),
            )
        })
    }

    /// The launch statistics of `timeline`, once.
    pub fn launch_stats(&self, timeline: &Timeline) -> Option<&LaunchStats> {
        self.launch
            .get_or_init(|| crate::analysis::launch::launch_stats_of(timeline, self.launch_index(timeline)))
            .as_ref()
    }

    /// The answer of the window, from what the analyses worked out.
    pub fn answer(
        &self,
        timeline: Option<&Timeline>,
        diagnosis: Option<&crate::diagnosis::DiagnosisReport>,
        roofline: Option<&crate::roofline::Roofline>,
    ) -> crate::answer::Answer {
        let (gaps, launch) = match timeline {
            Some(t) => (Some(self.idle_gaps(t)), self.launch_stats(t)),
            None => (None, None),
        };
        crate::answer::answer(&crate::answer::Inputs {
            timeline,
            summary: self.summary,
            diagnosis,
            gaps,
            launch,
            roofline,
        })
    }

    /// The roles, gaps and launch statistics worked out so far (what the report keeps).
    pub(super) fn into_parts(self) -> (Option<Vec<DeviceStreams>>, Option<Vec<DeviceGaps>>, Option<LaunchStats>) {
        (self.roles.into_inner(), self.gaps.into_inner(), self.launch.into_inner().flatten())
    }
}
