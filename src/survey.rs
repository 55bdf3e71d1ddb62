//! Checking anchoring against the running server: the anchored tool names beside the live
//! `tools/list`, per server, with recall and precision.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::anchor;
use crate::catalog::{Catalog, CatalogEntry};
use crate::server::{LaunchConfig, Session};

/// How many servers a survey runs at once: node start-up is mostly waiting, not CPU.
const PARALLEL_SERVERS: usize = 4;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Comparison {
    pub anchored: usize,
    pub live: usize,
    /// Listed by the server, not found by anchoring.
    pub missing: Vec<String>,
    /// Found by anchoring, not listed by the server.
    pub extra: Vec<String>,
    pub recall: f64,
    pub precision: f64,
}

impl Comparison {
    pub fn new<'a>(
        anchored: impl IntoIterator<Item = &'a str>,
        live: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let anchored: BTreeSet<&str> = anchored.into_iter().collect();
        let live: BTreeSet<&str> = live.into_iter().collect();
        let hits = anchored.intersection(&live).count();
        let ratio = |n: usize, d: usize| if d == 0 { 1.0 } else { n as f64 / d as f64 };
        Comparison {
            anchored: anchored.len(),
            live: live.len(),
            missing: live.difference(&anchored).map(|s| s.to_string()).collect(),
            extra: anchored.difference(&live).map(|s| s.to_string()).collect(),
            recall: ratio(hits, live.len()),
            precision: ratio(hits, anchored.len()),
        }
    }

    pub fn is_exact(&self) -> bool {
        self.missing.is_empty() && self.extra.is_empty()
    }
}

/// One catalog entry: the anchored names of its package and the names its launch listed.
#[derive(Debug, Clone, Serialize)]
pub struct EntrySurvey {
    pub id: String,
    pub package: String,
    /// `Err` holds the cause when the package could not be anchored or the server not listed.
    pub result: Result<Listing, SurveyFailure>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub anchored: Vec<String>,
    pub live: Vec<String>,
}

/// A package against the union of what all its launches list: tools behind a flag or env var
/// are anchored whatever the settings, so only the full set can match them.
#[derive(Debug, Clone, Serialize)]
pub struct PackageSurvey {
    pub package: String,
    pub entries: Vec<String>,
    pub result: Result<Comparison, SurveyFailure>,
}

/// Why a package could not be surveyed; written in JSON as its message.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SurveyFailure {
    #[error("{0}")]
    Anchor(std::sync::Arc<crate::anchor::AnchorError>),
    #[error("{0}")]
    Server(std::sync::Arc<crate::server::ServerError>),
}

impl Serialize for SurveyFailure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Anchors one package and lists its live tools with the given launch settings.
pub async fn survey_package(
    root: &Path,
    config: &LaunchConfig,
    timeout: Duration,
) -> Result<Listing, SurveyFailure> {
    let server = |e| SurveyFailure::Server(std::sync::Arc::new(e));
    let inventory = anchor::anchor_launched(root, config)
        .map_err(|e| SurveyFailure::Anchor(std::sync::Arc::new(e)))?;
    let mut session = Session::start(root, config, &[], timeout)
        .await
        .map_err(server)?;
    let live = session.list_tools().await;
    session.close().await;
    let live = live.map_err(server)?;
    let names = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
    Ok(Listing {
        anchored: names(inventory.names()),
        live: names(live.names()),
    })
}

async fn survey_entry(entry: &CatalogEntry, catalog_dir: &Path, timeout: Duration) -> EntrySurvey {
    let result = survey_package(
        &entry.package_dir(catalog_dir),
        &entry.launch_config(catalog_dir),
        timeout,
    )
    .await;
    EntrySurvey {
        id: entry.id.clone(),
        package: entry.package.clone(),
        result,
    }
}

/// Surveys every entry of a catalog, a few at a time, in catalog order.
pub async fn survey_catalog(
    catalog: &Catalog,
    catalog_dir: &Path,
    timeout: Duration,
) -> Vec<EntrySurvey> {
    let mut out = Vec::new();
    for chunk in catalog.servers.chunks(PARALLEL_SERVERS) {
        let runs = chunk.iter().map(|e| survey_entry(e, catalog_dir, timeout));
        out.extend(futures::future::join_all(runs).await);
    }
    out
}

/// Joins the entries of each package, in order of first appearance.
pub fn by_package(entries: &[EntrySurvey]) -> Vec<PackageSurvey> {
    let mut packages: Vec<PackageSurvey> = Vec::new();
    for e in entries {
        let idx = match packages.iter().position(|p| p.package == e.package) {
            Some(i) => i,
            None => {
                packages.push(PackageSurvey {
                    package: e.package.clone(),
                    entries: vec![],
                    result: Ok(Comparison::new([], [])),
                });
                packages.len() - 1
            }
        };
        packages[idx].entries.push(e.id.clone());
    }
    for p in &mut packages {
        let mine: Vec<&EntrySurvey> = entries.iter().filter(|e| e.package == p.package).collect();
        p.result = match mine.iter().find_map(|e| e.result.as_ref().err()) {
            Some(err) => Err(err.clone()),
            None => {
                let listings: Vec<&Listing> =
                    mine.iter().filter_map(|e| e.result.as_ref().ok()).collect();
                let anchored = listings[0].anchored.iter().map(String::as_str);
                let live = listings
                    .iter()
                    .flat_map(|l| l.live.iter().map(String::as_str));
                Ok(Comparison::new(anchored, live))
            }
        };
    }
    packages
}
