//! The Markdown report: the HTML report's sections as text (tables for the charts, fenced
//! `diff` blocks inside `<details>` for the code), for a pull request or a wiki.

use std::fmt::Write;

use super::model::{LineKind, ReportData, ServerView, VersionView};
use crate::history::Totals;
use crate::validate::Tally;

/// A table cell: pipes and line breaks would end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn tests(t: Tally) -> String {
    format!("{} / {} / {}", t.passed, t.failed, t.unverifiable)
}

pub fn render(data: &ReportData) -> String {
    let mut out = format!(
        "# mcpevol report\n\n{}: {} server(s), {} version(s)\n\n## Overview\n\n\
         | server | status | version | operators | schema changes | breaking | tests of the rounds passed / failed / unverifiable | versions proven / unproven |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        data.source,
        data.servers.len(),
        data.servers.iter().map(|s| s.versions.len()).sum::<usize>()
    );
    for s in &data.servers {
        let changes = s.versions.iter().flat_map(|v| &v.record.schema_changes);
        let (all, breaking) =
            changes.fold((0, 0), |(a, b), c| (a + 1, b + usize::from(c.breaking)));
        let totals = Totals::of(s.versions.iter().map(|v| &v.record));
        let ops: Vec<String> = s
            .versions
            .iter()
            .filter_map(|v| v.record.operator.as_ref().map(|o| o.to_string()))
            .collect();
        let status = s
            .batch
            .as_ref()
            .and_then(|b| serde_json::to_value(b.status).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "| {} | {status} | {} | {} | {all} | {breaking} | {} | {} / {} |",
            cell(&s.name),
            s.versions
                .last()
                .map_or("-".to_string(), |v| v.version.tag.to_string()),
            ops.join(" "),
            tests(totals.tests),
            totals.proven,
            totals.unproven
        );
    }
    for b in data.without_workspace() {
        let why = b.error.as_deref().unwrap_or("no workspace");
        let _ = writeln!(
            out,
            "| {} | error | - | {} | | | | |",
            cell(&b.name),
            cell(why)
        );
    }
    let counts = |title: &str, counts: Vec<(String, u64)>| {
        let rows: String = counts
            .iter()
            .map(|(k, n)| format!("| {} | {n} |\n", cell(k)))
            .collect();
        format!("\n### {title}\n\n| | rounds |\n| --- | --- |\n{rows}")
    };
    out += &counts("Operators used", data.operator_counts());
    out += &counts("Change patterns", data.pattern_counts());
    out += "\n### Schema changes per stage\n\n| stage | breaking | not breaking |\n| --- | --- | --- |\n";
    for (stage, b, o) in data.changes_per_stage() {
        let _ = writeln!(out, "| {} | {b} | {o} |", cell(&stage));
    }
    for s in &data.servers {
        out += &server(s);
        if let Some(d) = data.drift_of(&s.name) {
            out += &super::drift::markdown(d);
        }
    }
    out
}

fn server(s: &ServerView) -> String {
    let mut out = format!("\n## {}\n\n", s.name);
    let line: Vec<String> = s
        .timeline()
        .into_iter()
        .map(|item| match item.failed {
            Some(why) => format!("{} failed ({why})", item.version),
            None if item.stages.is_empty() => {
                format!("{} {}", item.version, item.made_by)
            }
            None => format!(
                "{} [{}] {}",
                item.version,
                item.stages.join(", "),
                item.made_by
            ),
        })
        .collect();
    let _ = writeln!(out, "Timeline: {}\n", line.join(" → "));
    out += "| version | operator | summary | patterns | tests passed / failed / unverifiable | tokens |\n\
            | --- | --- | --- | --- | --- | --- |\n";
    for v in &s.versions {
        let op = match (&v.record.operator, &v.record.operator_name) {
            (Some(id), Some(name)) => format!("{id} {name}"),
            _ => v.record.made_by(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            v.version.tag,
            cell(&op),
            cell(&v.record.summary),
            crate::schema::joined_patterns(&v.record.patterns, " "),
            tests(v.tests),
            v.record.usage.map_or("-".into(), |u| format!(
                "{} ({})",
                u.total_tokens,
                v.record.model.as_deref().unwrap_or("?")
            ))
        );
    }
    for v in s.versions.iter().filter(|v| v.version.number() > 0) {
        out += &round(v);
    }
    out
}

fn round(v: &VersionView) -> String {
    let r = &v.record;
    let mut out = format!(
        "\n### {} · {} {}\n\n{}\n\n",
        v.version.tag,
        r.operator
            .as_ref()
            .map(|o| o.to_string())
            .unwrap_or_default(),
        r.operator_name.as_deref().unwrap_or(""),
        r.summary
    );
    for c in &r.schema_changes {
        let _ = writeln!(
            out,
            "- `{}`: {}{}{}",
            c.tool,
            c.describe(),
            c.pattern.map_or(String::new(), |p| format!(" ({p})")),
            if c.breaking { " **breaking**" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "\nTests: {} passed, {} failed, {} unverifiable.",
        v.tests.passed, v.tests.failed, v.tests.unverifiable
    );
    match &r.proof.unproven_reason {
        None => out.push_str("\nProven: a passed check showed the change.\n"),
        Some(why) => {
            let _ = writeln!(out, "\nUnproven: {}", cell(why));
        }
    }
    let (added, removed) = v
        .diff
        .iter()
        .fold((0, 0), |(a, d), f| (a + f.added, d + f.removed));
    let _ = write!(
        out,
        "\n<details><summary>Code diff: {} file(s), +{added} −{removed}</summary>\n\n```diff\n",
        v.diff.len()
    );
    for f in &v.diff {
        let _ = writeln!(out, "--- a/{0}\n+++ b/{0}", f.path);
        for l in &f.lines {
            let sign = match l.kind {
                LineKind::Added => "+",
                LineKind::Removed => "-",
                LineKind::Context => " ",
                LineKind::Hunk => "",
            };
            // A fence inside the code would end the block early.
            let _ = writeln!(out, "{sign}{}", l.text.replace("```", "`\u{200b}``"));
        }
        if f.omitted > 0 {
            let _ = writeln!(out, "# {} more lines not shown", f.omitted);
        }
    }
    out + "```\n\n</details>\n"
}
