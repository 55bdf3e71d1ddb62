//! When a release's dependencies as of its upload date do not resolve (one of them asks for a
//! version of another that came out later, or was yanked since): the package the installer
//! names as failing gets a later cut-off, step by step, until the set resolves. What was
//! relaxed is recorded beside the install (`resolution.toml`, with the versions it resolved
//! to) and said in the workspace's `server.toml`, so the install can be repeated and audited.

use serde::{Deserialize, Serialize};

/// How far past the release's cut-off a failing package is allowed, in days, tried in order;
/// after the last, the package is resolved as of today.
const STEPS_DAYS: &[i64] = &[30, 180, 730];

/// How many relaxations one install tries before it gives up with the installer's error.
pub const MAX_RELAXATIONS: usize = 12;

/// One package resolved later than the release's cut-off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relaxed {
    /// The package, as the installer named it (normalized).
    pub package: String,
    /// Its cut-off (RFC 3339), or none: as of the day of the install.
    pub cutoff: Option<String>,
}

/// How an install's dependencies were resolved, written as `resolution.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    /// The release's own cut-off, when the index gave its upload time.
    pub cutoff: Option<String>,
    /// Packages allowed past it, in the order they failed.
    #[serde(default)]
    pub relaxed: Vec<Relaxed>,
    /// The interpreter the environment was made with, when the default one was too old for
    /// the release (`python3.13`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// What the environment holds, `name==version` per line, as the installer listed it.
    #[serde(default)]
    pub frozen: Vec<String>,
}

impl Resolution {
    /// The next step for the package an installer's error names, or `None` when it names
    /// none, names the package being installed (`own`: its cut-off is its own upload), or
    /// that package is already resolved as of today.
    pub fn relax(&mut self, installer_error: &str, own: &str) -> Option<&Relaxed> {
        let cutoff = self.cutoff.clone()?;
        let package = failing_package(installer_error).filter(|p| p != own)?;
        if self.relaxed.len() >= MAX_RELAXATIONS {
            return None;
        }
        let next = match self.relaxed.iter().position(|r| r.package == package) {
            None => Some(later(&cutoff, STEPS_DAYS[0])),
            Some(at) => {
                let current = self.relaxed[at].cutoff.clone()?;
                let step = STEPS_DAYS
                    .iter()
                    .position(|d| later(&cutoff, *d) == current)
                    .map_or(STEPS_DAYS.len(), |s| s + 1);
                self.relaxed.remove(at);
                STEPS_DAYS.get(step).map(|d| later(&cutoff, *d))
            }
        };
        self.relaxed.push(Relaxed {
            package,
            cutoff: next,
        });
        self.relaxed.last()
    }

    /// One line for people: what was relaxed, or nothing when the cut-off held.
    pub fn summary(&self) -> Option<String> {
        let python = self
            .python
            .as_ref()
            .map(|p| format!("the release needs a newer Python than the default; made with {p}"));
        if self.relaxed.is_empty() {
            return python;
        }
        let each: Vec<String> = self
            .relaxed
            .iter()
            .map(|r| match &r.cutoff {
                Some(c) => format!("{} as of {c}", r.package),
                None => format!("{} as of the day of the install", r.package),
            })
            .collect();
        let relaxed = format!(
            "dependencies as of {} did not resolve; relaxed: {}",
            self.cutoff.as_deref().unwrap_or("the upload"),
            each.join(", ")
        );
        Some(match python {
            Some(p) => format!("{p}; {relaxed}"),
            None => relaxed,
        })
    }
}

/// The package an installer's resolution error is about: pip's "No matching distribution
/// found for certifi>=2026.10.19", uv's "there is no version of certifi==..." or "only
/// certifi<=2025.1.1 is available".
pub fn failing_package(error: &str) -> Option<String> {
    static PATTERNS: std::sync::LazyLock<[regex::Regex; 3]> = std::sync::LazyLock::new(|| {
        [
            r"No matching distribution found for ([A-Za-z0-9][A-Za-z0-9._-]*)",
            r"there is no version of ([A-Za-z0-9][A-Za-z0-9._-]*)",
            r"only ([A-Za-z0-9][A-Za-z0-9._-]*?)(?:[<>=!~]|\s+is available)",
        ]
        .map(|p| regex::Regex::new(p).expect("the installer error patterns compile"))
    });
    PATTERNS.iter().find_map(|p| {
        p.captures(error)
            .map(|c| super::pypi_spec::normalize(c[1].trim_end_matches(['.', '-', '_'])))
    })
}

/// The Python version a release needs when the installer refused the interpreter for it:
/// uv's "depends on Python>=3.13", pip's "requires a different Python: 3.11.7 not in '>=3.13'".
pub fn needed_python(error: &str) -> Option<(u32, u32)> {
    static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:depends on Python\s*>=\s*|not in '\s*>=\s*)(\d+)\.(\d+)")
            .expect("the Python requirement pattern compiles")
    });
    let c = PATTERN.captures(error)?;
    Some((c[1].parse().ok()?, c[2].parse().ok()?))
}

/// `days` after an RFC 3339 time, to the second.
fn later(cutoff: &str, days: i64) -> String {
    chrono::DateTime::parse_from_rfc3339(cutoff)
        .map(|t| {
            (t + chrono::Duration::days(days))
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        })
        .unwrap_or_else(|_| cutoff.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failing_package_is_read_from_pip_and_uv_errors() {
        let pip = "ERROR: Could not find a version that satisfies the requirement certifi>=2026.10.19 (from requests)\nERROR: No matching distribution found for certifi>=2026.10.19";
        assert_eq!(failing_package(pip).as_deref(), Some("certifi"));
        let uv = "  × No solution found when resolving dependencies:\n  ╰─▶ Because only Certifi<=2025.1.31 is available and example depends on certifi>=2026.10.19, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(failing_package(uv).as_deref(), Some("certifi"));
        let none = "  ╰─▶ Because there is no version of pydantic-core==2.41.5 and pydantic==2.12 depends on it";
        assert_eq!(failing_package(none).as_deref(), Some("pydantic-core"));
        assert_eq!(failing_package("error: network unreachable"), None);
        let python = "Because the current Python version (3.11.7) does not satisfy Python>=3.13 and mcp-text-editor==1.2.2 depends on Python>=3.13, we can conclude that mcp-text-editor==1.2.2 cannot be used.\n And because only mcp-text-editor<=1.2.2 is available";
        assert_eq!(needed_python(python), Some((3, 13)));
        let pip = "ERROR: Package 'x' requires a different Python: 3.11.7 not in '>=3.12'";
        assert_eq!(needed_python(pip), Some((3, 12)));
        // The release itself is never relaxed: its cut-off is its own upload.
        let mut r = Resolution {
            cutoff: Some("2025-01-01T00:00:00Z".into()),
            ..Resolution::default()
        };
        assert!(r.relax(python, "mcp-text-editor").is_none());
    }

    #[test]
    fn a_failing_package_is_relaxed_step_by_step_then_resolved_as_of_today() {
        let mut r = Resolution {
            cutoff: Some("2025-01-01T00:00:00Z".into()),
            ..Resolution::default()
        };
        let error = "No matching distribution found for certifi>=2026.10.19";
        let steps: Vec<Option<String>> = (0..4)
            .map(|_| r.relax(error, "example").expect("a step").cutoff.clone())
            .collect();
        assert_eq!(
            steps,
            [
                Some("2025-01-31T00:00:00Z".to_string()),
                Some("2025-06-30T00:00:00Z".to_string()),
                Some("2027-01-01T00:00:00Z".to_string()),
                None
            ]
        );
        assert!(
            r.relax(error, "example").is_none(),
            "nothing is left to relax"
        );
        assert_eq!(r.relaxed.len(), 1);
        let summary = r.summary().unwrap();
        assert!(
            summary.contains("certifi as of the day of the install"),
            "{summary}"
        );
        // Without a cut-off, nothing can be relaxed.
        assert!(Resolution::default().relax(error, "example").is_none());
    }
}
