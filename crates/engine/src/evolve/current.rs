//! The latest committed version as the next round sees it: its tools and its answers, read
//! from the note kept beside its commit (`version_record::observed`) where there is one, else
//! observed by starting it.

use std::time::Instant;

use mcpevol_anchor as anchor;

use super::{Evolution, EvolveError};
use crate::version_record::{self, observed};
use crate::workspace::VersionTag;
use mcpevol_oracle::server::LiveTools;
use mcpevol_oracle::validate::{self, Baseline};

/// The latest committed version as the next round sees it: its live tools and its answers.
pub(super) struct Current {
    pub(super) version: VersionTag,
    pub(super) tools: LiveTools,
    pub(super) baseline: Baseline,
    /// The time observing it took, counted in the next round's first try (none where its
    /// answers were read from the note).
    pub(super) baseline_ms: f64,
}

impl Evolution<'_> {
    /// The latest version, its tools and its answers: what the first round changes.
    pub(super) async fn current(&self) -> Result<Current, EvolveError> {
        let no_versions = || EvolveError::NoVersions(self.root.display().to_string());
        let latest = self.ws.latest()?.ok_or_else(no_versions)?;
        let tools = version_record::read_tools(&self.ws, latest.tag)?.ok_or_else(no_versions)?;
        // The calls of the last checks are the plan to start from: read from the record, as
        // after a commit, so that a resumed run makes the calls an uninterrupted one makes.
        let hints = version_record::read_round(&self.ws, latest.tag)?
            .map(|r| validate::CallHints::from_tests(&r.tests))
            .unwrap_or_default();
        // Answers kept when the version was made (or last observed) are not asked for again.
        if let Some(baseline) = observed::read(&self.ws, &latest.commit, self.opts.timeout) {
            return Ok(Current {
                version: latest.tag,
                tools,
                baseline,
                baseline_ms: 0.0,
            });
        }
        // The first round's anchoring reads every file; it overlaps the first baseline's server.
        let first_anchoring = anchor::prefetch(self.root, None, &self.cache);
        let current = self
            .observed(latest.tag, tools, &hints, &Baseline::default())
            .await;
        let _ = first_anchoring.join();
        let current = current?;
        observed::keep(
            &self.ws,
            &latest.commit,
            self.opts.timeout,
            &current.baseline,
        )?;
        Ok(current)
    }

    /// `version` with its tools, observed; what `carried` (the version before's answers) could
    /// not reach is carried over, not asked for again.
    pub(super) async fn observed(
        &self,
        version: VersionTag,
        tools: LiveTools,
        hints: &validate::CallHints,
        carried: &Baseline,
    ) -> Result<Current, EvolveError> {
        let started = Instant::now();
        let baseline = self.observe(&tools, hints, version, carried).await?;
        Ok(Current {
            version,
            tools,
            baseline,
            baseline_ms: started.elapsed().as_secs_f64() * 1e3,
        })
    }

    /// The answers of `version`, the latest, or the error that no round can be validated
    /// without them.
    async fn observe(
        &self,
        live: &LiveTools,
        hints: &validate::CallHints,
        version: VersionTag,
        carried: &Baseline,
    ) -> Result<Baseline, EvolveError> {
        Baseline::observe(
            self.root,
            &self.config,
            &live.tools,
            self.opts.timeout,
            hints,
            carried,
        )
        .await
        .map_err(|e| EvolveError::ServerBroken {
            root: self.root.display().to_string(),
            version,
            why: e.to_string(),
        })
    }
}
