//! The HTML report: one self-contained page (inline CSS and SVG, no script, no network; a
//! Content-Security-Policy forbids any load) with a batch overview and charts, then per server
//! its timeline, rounds, the drift of the original's calls (when given), schema changes, tests
//! and collapsible coloured code diffs.

use std::fmt::Write;

use super::escape::esc;
use super::model::{FileDiff, LineKind, ReportData, ServerView, VersionView};
use super::svg::{self, Bar};
use crate::history::Totals;
use crate::schema::SchemaChange;
use crate::validate::Tally;

const STYLE: &str = include_str!("report.css");

fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

pub fn render(data: &ReportData) -> String {
    let mut page = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    );
    let _ = write!(
        page,
        "<title>mcpevol report: {}</title><style>{STYLE}</style></head><body>\
         <header><h1>mcpevol report</h1><p class=\"source\">{}: {} server(s), {} version(s)</p>",
        esc(&data.source),
        esc(&data.source),
        data.servers.len(),
        data.servers.iter().map(|s| s.versions.len()).sum::<usize>()
    );
    page += "<nav><a href=\"#overview\">Overview</a>";
    for s in &data.servers {
        let _ = write!(
            page,
            " · <a href=\"#server-{}\">{}</a>",
            slug(&s.name),
            esc(&s.name)
        );
    }
    page += "</nav></header><main>";
    page += &overview(data);
    for s in &data.servers {
        page += &server(s, data.drift_of(&s.name));
    }
    page + "</main></body></html>\n"
}

// Long: the overview written in the order the page shows it.
fn overview(data: &ReportData) -> String {
    let mut out = String::from(
        "<section id=\"overview\"><h2>Overview</h2><table class=\"overview\"><thead><tr>\
         <th>server</th><th>status</th><th>version</th><th>operators</th><th>schema changes</th>\
         <th>breaking</th><th>tests of the rounds passed / failed / unverifiable</th>\
         <th>versions proven / unproven</th><th>tokens</th><th>time</th>\
         </tr></thead><tbody>",
    );
    for s in &data.servers {
        let changes: Vec<&SchemaChange> = s
            .versions
            .iter()
            .flat_map(|v| &v.record.schema_changes)
            .collect();
        let breaking = changes.iter().filter(|c| c.breaking).count();
        let totals = Totals::of(s.versions.iter().map(|v| &v.record));
        let ops: Vec<String> = s
            .versions
            .iter()
            .filter_map(|v| v.record.operator.as_ref().map(|o| o.to_string()))
            .collect();
        let status = s.batch.as_ref().map_or("-".to_string(), |b| {
            serde_json::to_value(b.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        });
        let usage = crate::history::total_usage(s.versions.iter().map(|v| v.record.usage));
        let _ = write!(
            out,
            "<tr class=\"server-row\" data-server=\"{n}\"><td><a href=\"#server-{id}\">{n}</a></td>\
             <td class=\"status {status}\">{status}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"breaking-count\">{breaking}</td><td class=\"test-totals\">{}</td>\
             <td class=\"proof-totals\">{} / {}</td><td>{}</td><td>{}</td></tr>",
            s.versions
                .last()
                .map_or("-".to_string(), |v| v.version.tag.to_string()),
            esc(&ops.join(" ")),
            changes.len(),
            test_counts(totals.tests),
            totals.proven,
            totals.unproven,
            usage.map_or("-".into(), |u| u.total_tokens.to_string()),
            s.batch
                .as_ref()
                .map_or("-".into(), |b| format!("{:.1} s", b.seconds)),
            n = esc(&s.name),
            id = slug(&s.name),
        );
    }
    for b in data.without_workspace() {
        let _ = write!(
            out,
            "<tr class=\"server-row no-workspace\" data-server=\"{n}\"><td>{n}</td>\
             <td class=\"status error\">error</td><td colspan=\"7\" class=\"failed\">{}</td></tr>",
            esc(b.error.as_deref().unwrap_or("no workspace")),
            n = esc(&b.name)
        );
    }
    out += "</tbody></table><div class=\"charts\">";
    let simple = |counts: Vec<(String, u64)>, class: &'static str| -> Vec<Bar> {
        counts
            .into_iter()
            .map(|(label, n)| Bar {
                label,
                segments: vec![(n, class)],
            })
            .collect()
    };
    let _ = write!(
        out,
        "<figure>{}<figcaption>Operators used (rounds)</figcaption></figure>",
        svg::bar_chart(
            "chart-operators",
            "Operators used",
            &simple(data.operator_counts(), "seg-op"),
            &[]
        )
    );
    let _ = write!(
        out,
        "<figure>{}<figcaption>Change patterns (rounds showing each)</figcaption></figure>",
        svg::bar_chart(
            "chart-patterns",
            "Change patterns",
            &simple(data.pattern_counts(), "seg-pattern"),
            &[]
        )
    );
    let stages: Vec<Bar> = data
        .changes_per_stage()
        .into_iter()
        .map(|(label, breaking, other)| Bar {
            label,
            segments: vec![(breaking, "seg-breaking"), (other, "seg-other")],
        })
        .collect();
    let _ = write!(
        out,
        "<figure>{}<figcaption>Schema changes per stage (made since the stage before)</figcaption></figure>",
        svg::bar_chart(
            "chart-stages",
            "Breaking changes per stage",
            &stages,
            &[("seg-breaking", "breaking"), ("seg-other", "not breaking")]
        )
    );
    out + "</div></section>"
}

fn test_counts(t: Tally) -> String {
    format!(
        "<span class=\"passed\">{}</span> / <span class=\"failed\">{}</span> / <span class=\"unverifiable\">{}</span>",
        t.passed, t.failed, t.unverifiable
    )
}

fn server(s: &ServerView, drift: Option<&crate::drift::ServerDrift>) -> String {
    let id = slug(&s.name);
    let mut out = format!(
        "<section class=\"server\" id=\"server-{id}\" data-server=\"{}\"><h2>{}</h2>",
        esc(&s.name),
        esc(&s.name)
    );
    let mut meta = vec![format!(
        "workspace <code>{}</code>",
        esc(&s.dir.display().to_string())
    )];
    if let Some(b) = &s.batch {
        meta.push(format!("seed {}", b.seed));
        meta.push(format!("{:.1} s", b.seconds));
        if let Some(e) = &b.error {
            meta.push(format!("<span class=\"failed\">error: {}</span>", esc(e)));
        }
    }
    let usage = crate::history::total_usage(s.versions.iter().map(|v| v.record.usage));
    if let Some(u) = usage {
        let models: Vec<&str> = s
            .versions
            .iter()
            .filter_map(|v| v.record.model.as_deref())
            .collect();
        meta.push(format!(
            "{} tokens ({} prompt, {} completion), model {}",
            u.total_tokens,
            u.prompt_tokens,
            u.completion_tokens,
            esc(models.last().unwrap_or(&"?"))
        ));
    }
    let _ = write!(out, "<p class=\"meta\">{}</p>", meta.join(" · "));
    out += &timeline(s);
    out += "<h3>Rounds</h3><table class=\"rounds\"><thead><tr><th>version</th><th>operator</th>\
            <th>summary</th><th>patterns</th><th>tests passed / failed / unverifiable</th><th>proof</th>\
            <th>tokens</th></tr></thead><tbody>";
    for v in &s.versions {
        let _ = write!(
            out,
            "<tr class=\"round\" data-version=\"{t}\"><td><a href=\"#{id}-{t}\">{t}</a></td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td class=\"proof\">{}</td><td>{}</td></tr>",
            operator(v),
            esc(&v.record.summary),
            esc(&crate::schema::joined_patterns(&v.record.patterns, " ")),
            test_counts(v.tests),
            proof(v),
            v.record.usage.map_or("-".into(), |u| format!(
                "{} ({})",
                u.total_tokens,
                esc(v.record.model.as_deref().unwrap_or("?"))
            )),
            t = v.version.tag,
        );
    }
    out += "</tbody></table>";
    let records: Vec<_> = s.versions.iter().map(|v| v.record.clone()).collect();
    out += &super::mix::table(&records);
    if let Some(d) = drift {
        out += &super::drift::html(d);
    }
    for v in s.versions.iter().filter(|v| v.version.number() > 0) {
        out += &round(&id, v);
    }
    out + "</section>"
}

/// "proven", or "unproven" with the reason on hover and in text; the original is the reference.
fn proof(v: &VersionView) -> String {
    if v.version.number() == 0 {
        return "reference".into();
    }
    match &v.record.proof.unproven_reason {
        None => "proven".into(),
        Some(why) => format!(
            "<span class=\"unproven\" title=\"{w}\">unproven</span>: {w}",
            w = esc(why)
        ),
    }
}

fn operator(v: &VersionView) -> String {
    match (&v.record.operator, &v.record.operator_name) {
        (Some(id), Some(name)) => format!("<b>{}</b> {}", esc(&id.to_string()), esc(name)),
        (Some(id), None) => format!("<b>{}</b>", esc(&id.to_string())),
        _ => esc(&v.record.made_by()),
    }
}

fn timeline(s: &ServerView) -> String {
    let mut list = String::new();
    for item in s.timeline() {
        let op = esc(&item.made_by);
        let t = esc(&item.version.to_string());
        match &item.failed {
            None => {
                let stages: String = item
                    .stages
                    .iter()
                    .map(|st| format!("<span class=\"stage\">{}</span>", esc(st)))
                    .collect();
                let _ = write!(
                    list,
                    "<li class=\"version\" data-version=\"{t}\"><span class=\"tag\">{t}</span>{stages}\
                     <span class=\"op\">{op}</span></li>"
                );
            }
            Some(why) => {
                let _ = write!(
                    list,
                    "<li class=\"version failed-round\" data-version=\"{t}\" title=\"{why}\">\
                     <span class=\"tag\">{t} ✗</span><span class=\"op\">{op}</span>\
                     <span class=\"why\">{why}</span></li>",
                    why = esc(why)
                );
            }
        }
    }
    format!("<h3>Timeline</h3><ol class=\"timeline\">{list}</ol>")
}

fn round(server_id: &str, v: &VersionView) -> String {
    let r = &v.record;
    let targets: Vec<&String> = r.targets.iter().chain(&r.added).collect();
    let mut out = format!(
        "<article class=\"round-detail\" id=\"{server_id}-{t}\" data-version=\"{t}\"><h4>{t} · {} on {}</h4><p>{}</p>",
        operator(v),
        esc(&targets
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")),
        esc(&r.summary),
        t = v.version.tag
    );
    out += &super::mix::changes(r);
    if r.schema_changes.is_empty() {
        out += "<p class=\"changes none\">No schema change.</p>";
    } else {
        out += "<table class=\"changes\"><thead><tr><th>tool</th><th>change</th><th>pattern</th><th></th></tr></thead><tbody>";
        for c in &r.schema_changes {
            let _ = write!(
                out,
                "<tr class=\"change{}\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                if c.breaking { " breaking" } else { "" },
                esc(&c.tool),
                esc(&c.describe()),
                esc(&c.pattern.map(|p| p.to_string()).unwrap_or_default()),
                if c.breaking {
                    "<span class=\"badge breaking\">breaking</span>"
                } else {
                    ""
                }
            );
        }
        out += "</tbody></table>";
    }
    if !r.patterns.is_empty() {
        let _ = write!(
            out,
            "<p class=\"patterns\">Round patterns: {}</p>",
            esc(&crate::schema::joined_patterns(&r.patterns, ", "))
        );
    }
    let _ = write!(out, "<p class=\"tests\">Tests: {}", test_counts(v.tests));
    if let Some(u) = r.usage {
        let _ = write!(
            out,
            " · tokens {} ({} prompt, {} completion), model {}",
            u.total_tokens,
            u.prompt_tokens,
            u.completion_tokens,
            esc(r.model.as_deref().unwrap_or("?"))
        );
    }
    out += "</p>";
    let problems: Vec<String> = r
        .tests
        .iter()
        .filter(|t| t.verdict != crate::validate::Verdict::Passed)
        .map(|t| {
            format!(
                "<li><code>{}</code>: {}</li>",
                esc(&t.tool),
                esc(t.reason.as_deref().unwrap_or(""))
            )
        })
        .collect();
    if !problems.is_empty() {
        let _ = write!(out, "<ul class=\"test-notes\">{}</ul>", problems.concat());
    }
    out += &diff(&v.diff);
    out + "</article>"
}

fn diff(files: &[FileDiff]) -> String {
    let (added, removed) = files
        .iter()
        .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
    let mut out = format!(
        "<details class=\"diff\"><summary>Code diff: {} file(s), <span class=\"add\">+{added}</span> \
         <span class=\"del\">−{removed}</span></summary>",
        files.len()
    );
    for f in files {
        let _ = write!(
            out,
            "<div class=\"file\"><div class=\"path\">{}</div>",
            esc(&f.path)
        );
        if f.binary {
            out += "<p>binary file</p></div>";
            continue;
        }
        out += "<pre class=\"code\"><code>";
        for l in &f.lines {
            let (class, sign) = match l.kind {
                LineKind::Added => ("add", "+"),
                LineKind::Removed => ("del", "-"),
                LineKind::Context => ("ctx", " "),
                LineKind::Hunk => ("hunk", ""),
            };
            let number = |n: Option<u32>| n.map_or(String::new(), |n| n.to_string());
            let body = l.html.clone().unwrap_or_else(|| esc(&l.text));
            let _ = write!(
                out,
                "<span class=\"line {class}\"><span class=\"ln\">{}</span><span class=\"ln\">{}</span>\
                 <span class=\"sign\">{sign}</span>{body}</span>",
                number(l.old),
                number(l.new)
            );
        }
        out += "</code></pre>";
        if f.omitted > 0 {
            let _ = write!(
                out,
                "<p class=\"omitted\">{} more lines not shown</p>",
                f.omitted
            );
        }
        out += "</div>";
    }
    out + "</details>"
}
