//! What a report shows of release-shaped versions: each release's changes (with their proof,
//! and the ones dropped from it), and a server's realised pattern mix beside its target with
//! the total-variation distance between them.

use std::fmt::Write;

use super::escape::esc;
use crate::version_record::RoundRecord;

/// The realised mix of a server's versions beside the target its releases recorded; empty when
/// no version is a release.
pub fn table(records: &[RoundRecord]) -> String {
    let run = crate::history::run_mix(records);
    let (Some(target), Some(tv)) = (&run.target, run.tv_distance) else {
        return String::new();
    };
    let mut out = format!(
        "<h3>Pattern mix</h3><p class=\"mix\">{} events over {} versions; total-variation \
         distance {tv:.3} from <code>{}</code>; median {:.1} tools touched per version, {:.0}% of \
         changed tools with a composite change</p><table class=\"mix\"><thead><tr><th>pattern</th>\
         <th>target</th><th>realised</th></tr></thead><tbody>",
        run.events,
        records.iter().filter(|r| r.version.number() > 0).count(),
        esc(run.source.as_deref().unwrap_or("")),
        run.median_tools_touched,
        100.0 * run.composite_share,
    );
    let labels: std::collections::BTreeSet<_> = target.keys().chain(run.realised.keys()).collect();
    for label in labels {
        let share = |m: &crate::release::Shares| 100.0 * m.get(label).copied().unwrap_or(0.0);
        let _ = write!(
            out,
            "<tr><td>{label}</td><td>{:.1}%</td><td>{:.1}%</td></tr>",
            share(target),
            share(&run.realised)
        );
    }
    out + "</tbody></table>"
}

/// A version of several changes: one item per change (operator, tools, patterns, proof) and
/// per change dropped from the release; empty for one change.
pub fn changes(r: &RoundRecord) -> String {
    if r.changes.len() < 2 && r.release.is_none() {
        return String::new();
    }
    let mut out = String::from("<ul class=\"release-changes\">");
    for c in &r.changes {
        let proof = match &c.proof.unproven_reason {
            None => "proven".to_string(),
            Some(why) => format!("unproven: {}", esc(why)),
        };
        let _ = write!(
            out,
            "<li>{} {} on <code>{}</code> · {} · {proof}</li>",
            esc(c.proposal.operator.as_str()),
            esc(&c.operator_name),
            esc(&c.tools().join(", ")),
            esc(&crate::schema::joined_patterns(&c.patterns, ", ")),
        );
    }
    for d in r
        .rejected
        .iter()
        .filter(|d| d.reason.starts_with("dropped from the release"))
    {
        let _ = write!(
            out,
            "<li class=\"dropped\">{} on <code>{}</code> · {}</li>",
            esc(d.operator.as_ref().map_or("?", |o| o.as_str())),
            esc(&d.targets.join(", ")),
            esc(&d.reason)
        );
    }
    out + "</ul>"
}
