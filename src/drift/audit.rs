//! One server's audit, start to end: which versions and calls (the plan, read from the
//! workspace before any server starts), the original observed twice, every version replayed,
//! each call classified beside its forecast, and the disagreements listed.
//!
//! Determinism is judged as the oracle judges it, with one more sample: the original is
//! replayed once more like every other version (its own column), and an output that differs
//! there, or in two more sessions taken when some version's output changed, is compared by
//! status only. State is judged too: a later answer that changed only because a call before it
//! was refused is found by replaying the original without the refused calls ([`cascades`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::forecast::forecast;
use super::replay::{self, Original, Replayed};
use super::verdict::{self, Context};
use super::{
    Call, CallResult, Disagreement, DriftError, DriftOptions, Forecast, ServerDrift, Verdict,
    VersionFailure, calls, lineage,
};
use crate::history;
use crate::listed::ListedTool;
use crate::server::session::CallStatus;
use crate::validate::{self, Observation};
use crate::version_record::{self, RoundRecord};
use crate::workspace::{Version, Workspace};

/// What one server's audit will do, read from its workspace.
pub(super) struct Plan {
    pub name: String,
    pub dir: PathBuf,
    pub calls: Vec<Call>,
    /// The versions to show, oldest first.
    pub shown: Vec<Version>,
    /// Every version with its record, oldest first; the first is the original.
    pub records: Vec<(Version, RoundRecord)>,
}

/// How an audit tells what it is doing.
pub(super) enum Step {
    /// Starting on a version (or on the original's two sessions).
    Starting(String),
    /// A shown version is done, with its counts in words.
    Done(String),
}

/// Reads the workspace at `dir`: its versions, the ones asked for, and the calls (`given`,
/// or the original's recorded ones).
pub(super) fn plan(
    name: &str,
    dir: &Path,
    versions: Option<&[String]>,
    given: Option<Vec<Call>>,
) -> Result<Plan, DriftError> {
    let ws = Workspace::open(dir)?;
    let records = history::versions(&ws)?;
    let Some((_, original)) = records.first().filter(|(v, _)| v.number() == 0) else {
        return Err(DriftError::NoOriginal(dir.to_path_buf()));
    };
    let calls = given.unwrap_or_else(|| calls::recorded(&original.tests));
    let mut shown: Vec<Version> = match versions {
        None => records.iter().map(|(v, _)| v.clone()).collect(),
        Some(asked) => {
            let mut out = Vec::new();
            for rev in asked {
                let commit = ws.resolve(rev).ok();
                let found = records
                    .iter()
                    .find(|(v, _)| v.tag.to_string() == *rev)
                    .or_else(|| {
                        records
                            .iter()
                            .find(|(v, _)| Some(&v.commit) == commit.as_ref())
                    });
                match found {
                    Some((v, _)) => out.push(v.clone()),
                    None => {
                        return Err(DriftError::NoVersion {
                            rev: rev.clone(),
                            dir: dir.to_path_buf(),
                        });
                    }
                }
            }
            out
        }
    };
    shown.sort_by_key(|v| v.number());
    shown.dedup_by_key(|v| v.number());
    Ok(Plan {
        name: name.to_string(),
        dir: dir.to_path_buf(),
        calls,
        shown,
        records,
    })
}

/// Runs the plan: the original twice, each version once, every call classified.
pub(super) async fn audit(
    plan: &Plan,
    opts: &DriftOptions,
    step: &dyn Fn(Step),
) -> Result<ServerDrift, DriftError> {
    let ws = Workspace::open(&plan.dir)?;
    let tools = |tag: &str| -> Result<Vec<ListedTool>, DriftError> {
        let listed = version_record::read_tools(&ws, tag)?.ok_or_else(|| DriftError::NoTools {
            version: tag.to_string(),
            dir: plan.dir.clone(),
        })?;
        Ok(listed.tools)
    };
    let original_tag = plan.records[0].0.tag.to_string();
    let before = tools(&original_tag)?;
    step(Step::Starting(format!(
        "{original_tag}: the original, twice"
    )));
    let mut original =
        replay::observe(&ws, &original_tag, &plan.calls, &names(&before), opts).await?;
    let skip: Vec<bool> = original
        .observed
        .iter()
        .map(|o| o.status == CallStatus::Timeout)
        .collect();

    // The original once more, as every version is replayed: a third sample of each output.
    let again = replay::replay(&ws, &original_tag, &plan.calls, &skip, opts).await;
    vary(&mut original.observed, |i, v| sample(&again, i, v));
    let mut again = Some(again);
    let mut replays: Vec<(&Version, Replayed, Vec<ListedTool>)> = Vec::new();
    for v in &plan.shown {
        step(Step::Starting(format!(
            "{} ({}/{})",
            v.tag,
            v.number(),
            last(plan)
        )));
        let tag = v.tag.to_string();
        let replayed = match again.take_if(|_| tag == original_tag) {
            Some(sampled) => sampled,
            None => replay::replay(&ws, &tag, &plan.calls, &skip, opts).await,
        };
        let after = tools(&tag)?;
        replays.push((v, replayed, after));
        let last = replays.last().expect("pushed");
        let (results, _, _) = judge(plan, &original, &before, last, &Cascades::new());
        step(Step::Done(format!("{}: {}", v.tag, counts(&results))));
    }
    let any_changed = replays.iter().any(|r| {
        judge(plan, &original, &before, r, &Cascades::new())
            .0
            .iter()
            .any(|c| c.verdict == Verdict::Changed)
    });
    if any_changed {
        // As the oracle does before a difference fails a round: two more samples of the
        // original, and an output that varies there is compared by status only.
        step(Step::Starting(format!("{original_tag}: two more samples")));
        let more = replay::observe(&ws, &original_tag, &plan.calls, &names(&before), opts).await?;
        vary(&mut original.observed, |i, v| {
            let seen = &more.observed[i];
            let parts = validate::parts_as_learned(&seen.as_outcome(), v);
            Some((seen.status, parts, seen.deterministic))
        });
    }
    let cascades = cascades(&ws, plan, &original, &before, &replays, &skip, opts, step).await;
    let mut drift = ServerDrift {
        name: plan.name.clone(),
        versions: plan.shown.iter().map(|v| v.tag).collect(),
        calls: plan.calls.clone(),
        ..ServerDrift::default()
    };
    for (r, cascades) in replays.iter().zip(&cascades) {
        let (results, disagreements, failure) = judge(plan, &original, &before, r, cascades);
        drift.results.extend(results);
        drift.disagreements.extend(disagreements);
        drift.failed_versions.extend(failure);
    }
    drift.results.sort_by_key(|r| r.call);
    drift.disagreements.sort_by_key(|d| d.call);
    Ok(drift)
}

/// For one version: the calls (by index) whose changed answer or error is what the original
/// gives without the calls refused there before them, with the last such refused call's id.
type Cascades = BTreeMap<usize, usize>;

/// A call refused at a version did not make the state the later calls see. Where a later call
/// changed (or failed), the original is replayed once without the refused calls (one session
/// per set of them, shared by the versions that refuse the same calls), and a later answer it
/// gives alike is put down to the refusal.
#[allow(clippy::too_many_arguments)]
async fn cascades(
    ws: &Workspace,
    plan: &Plan,
    original: &Original,
    before: &[ListedTool],
    replays: &[(&Version, Replayed, Vec<ListedTool>)],
    skip: &[bool],
    opts: &DriftOptions,
    step: &dyn Fn(Step),
) -> Vec<Cascades> {
    let mut samples: BTreeMap<Vec<bool>, Replayed> = BTreeMap::new();
    let mut out = Vec::new();
    for r in replays {
        let (results, _, _) = judge(plan, original, before, r, &Cascades::new());
        let refused: Vec<bool> = results
            .iter()
            .map(|c| {
                matches!(
                    c.verdict,
                    Verdict::UnknownTool | Verdict::RefusedArguments | Verdict::Timeout
                )
            })
            .collect();
        let first = refused.iter().position(|x| *x);
        let later: Vec<usize> = results
            .iter()
            .enumerate()
            .filter(|(i, c)| {
                first.is_some_and(|f| *i > f)
                    && matches!(c.verdict, Verdict::Changed | Verdict::Error)
            })
            .map(|(i, _)| i)
            .collect();
        let mut found = Cascades::new();
        if !later.is_empty() {
            let without: Vec<bool> = refused.iter().zip(skip).map(|(a, b)| *a || *b).collect();
            if !samples.contains_key(&without) {
                let original_tag = plan.records[0].0.tag.to_string();
                step(Step::Starting(format!(
                    "{original_tag} without the calls {} refuses",
                    r.0.tag
                )));
                let sample = replay::replay(ws, &original_tag, &plan.calls, &without, opts).await;
                samples.insert(without.clone(), sample);
            }
            let sample = &samples[&without];
            for i in later {
                let (Some(a), Some(b)) = (sample.outcomes[i].as_ref(), r.1.outcomes[i].as_ref())
                else {
                    continue;
                };
                let alike = a.status == b.status
                    && validate::normalized_parts(a) == validate::normalized_parts(b);
                let by = refused[..i]
                    .iter()
                    .rposition(|x| *x)
                    .map(|j| plan.calls[j].id);
                if let (true, Some(k)) = (alike, by) {
                    found.insert(i, k);
                }
            }
        }
        out.push(found);
    }
    out
}

fn names(tools: &[ListedTool]) -> BTreeSet<String> {
    tools
        .iter()
        .filter_map(|t| t.name().map(str::to_string))
        .collect()
}

fn last(plan: &Plan) -> u32 {
    plan.records.last().map_or(0, |(v, _)| v.number())
}

/// The `i`-th answer of a replay as a sample: status, normalised parts, and whether it can
/// confirm (a single session always can).
fn sample(
    replayed: &Replayed,
    i: usize,
    volatile: &validate::Volatile,
) -> Option<(CallStatus, Vec<String>, bool)> {
    let outcome = replayed.outcomes.get(i)?.as_ref()?;
    Some((
        outcome.status,
        validate::parts_as_learned(outcome, volatile),
        true,
    ))
}

/// Marks as varying each deterministic output that a later sample does not confirm.
fn vary(
    observed: &mut [Observation],
    later: impl Fn(usize, &validate::Volatile) -> Option<(CallStatus, Vec<String>, bool)>,
) {
    for (i, seen) in observed.iter_mut().enumerate() {
        let Some((status, parts, deterministic)) = later(i, &seen.volatile) else {
            continue;
        };
        let again = Observation {
            arguments: seen.arguments.clone(),
            status,
            parts,
            raw: Vec::new(),
            other: Vec::new(),
            second: String::new(),
            volatile: seen.volatile.clone(),
            deterministic,
            like_unknown: false,
        };
        // A crash or hang of the sample says nothing of the output.
        let comparable = !matches!(status, CallStatus::Crashed | CallStatus::Timeout);
        if seen.deterministic && comparable && !seen.confirmed_by(&again) {
            seen.deterministic = false;
        }
    }
}

/// "5 same, 1 unknown-tool", verdicts in their order.
fn counts(results: &[CallResult]) -> String {
    let mut parts = Vec::new();
    for v in Verdict::ALL {
        let n = results.iter().filter(|r| r.verdict == v).count();
        if n > 0 {
            parts.push(format!("{n} {v}"));
        }
    }
    if parts.is_empty() {
        "no calls".into()
    } else {
        parts.join(", ")
    }
}

/// Every call at one replayed version: verdicts, forecasts, disagreements, and the version's
/// failure to start, if it did not.
// Long: verdicts, forecasts and disagreements of one version are built in one pass over its calls.
fn judge(
    plan: &Plan,
    original: &Original,
    before: &[ListedTool],
    (version, replayed, after): &(&Version, Replayed, Vec<ListedTool>),
    cascades: &Cascades,
) -> (Vec<CallResult>, Vec<Disagreement>, Option<VersionFailure>) {
    let rounds: Vec<&RoundRecord> = plan
        .records
        .iter()
        .filter(|(v, _)| v.number() >= 1 && v.number() <= version.number())
        .map(|(_, r)| r)
        .collect();
    // What the version lists: live where it started, else as recorded.
    let listed = names(replayed.listed.as_deref().unwrap_or(after));
    let mut results = Vec::new();
    let mut disagreements = Vec::new();
    for (i, call) in plan.calls.iter().enumerate() {
        let findings = forecast(before, after, &call.tool, &call.arguments);
        let fate = lineage::follow(rounds.iter().copied(), &call.tool);
        let is_listed = listed.contains(&call.tool);
        let successor = fate
            .now
            .clone()
            .filter(|n| !is_listed && *n != call.tool && listed.contains(n));
        let outcome = replayed.outcomes[i].as_ref();
        let (verdict, reason) = match &replayed.failure {
            Some(why) => (
                Verdict::Crash,
                format!("the server did not start at {}: {why}", version.tag),
            ),
            None => {
                let cx = Context {
                    tool: &call.tool,
                    listed: is_listed,
                    unknown: original.unknown.as_ref(),
                    findings: &findings,
                    fate: &fate,
                    cascade: cascades.get(&i).copied(),
                };
                verdict::classify(&original.observed[i], outcome, &cx)
            }
        };
        let why = verdict::disagreement(
            verdict,
            &findings,
            cascades.get(&i).copied(),
            replayed.failure.is_some(),
        );
        let forecast = if findings.is_empty() {
            Forecast::Ok
        } else {
            Forecast::Breaks
        };
        if let Some(why) = why {
            disagreements.push(Disagreement {
                call: call.id,
                version: version.tag,
                forecast,
                verdict,
                why,
            });
        }
        results.push(CallResult {
            call: call.id,
            version: version.tag,
            verdict,
            successor,
            forecast,
            reason,
            forecast_reasons: findings.iter().map(|f| f.detail.clone()).collect(),
            forecast_rules: findings.iter().map(|f| f.rule).collect(),
            status: outcome.map(|o| o.status),
        });
    }
    let failure = replayed.failure.as_ref().map(|error| VersionFailure {
        version: version.tag,
        error: error.clone(),
    });
    (results, disagreements, failure)
}
