//! The drift section of a server in the report (from what `drift --json` wrote): a matrix of
//! calls by version, each cell coloured by its verdict with the reason in its `title` and,
//! below the matrix, in text; then where the schema forecast and the replay disagree. The same
//! as Markdown.

use std::fmt::Write;

use super::escape::esc;
use crate::drift::{CallResult, Forecast, ServerDrift, Verdict};

/// Characters of a call's arguments shown in its row (the JSON has them whole).
const ARGUMENTS_SHOWN: usize = 80;

fn arguments(call: &crate::drift::Call) -> String {
    let text = serde_json::Value::Object(call.arguments.clone()).to_string();
    if text.chars().count() > ARGUMENTS_SHOWN {
        format!(
            "{}…",
            text.chars().take(ARGUMENTS_SHOWN - 1).collect::<String>()
        )
    } else {
        text
    }
}

/// Whether the forecast disagrees with the replay on this result.
fn disagrees(r: &CallResult) -> bool {
    r.verdict
        .breaks()
        .is_some_and(|b| b != (r.forecast == Forecast::Breaks))
}

/// The verdict in words, with where the tool went.
fn label(r: &CallResult) -> String {
    match &r.successor {
        Some(s) => format!("{} → {s}", r.verdict),
        None => r.verdict.to_string(),
    }
}

fn counts(d: &ServerDrift) -> String {
    d.counts()
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(v, n)| format!("{n} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The section as HTML: no script; the colours come from the page's style sheet.
// Long: the HTML section written in the order the page shows it.
pub fn html(d: &ServerDrift) -> String {
    let mut out = String::from("<section class=\"drift\"><h3>Drift of the original's calls</h3>");
    if let Some(e) = &d.error {
        let _ = write!(
            out,
            "<p class=\"failed drift-error\">Could not be audited: {}</p>",
            esc(e)
        );
        return out + "</section>";
    }
    let _ = write!(
        out,
        "<p class=\"drift-summary\">{} call(s) replayed on {} version(s): {}. \
         {} disagreement(s) with the schema forecast (cells marked ⚑).</p>",
        d.calls.len(),
        d.versions.len(),
        esc(&counts(d)),
        d.disagreements.len()
    );
    out += "<p class=\"drift-legend\">";
    for v in Verdict::ALL {
        let _ = write!(out, "<span class=\"verdict v-{v}\">{v}</span> ");
    }
    out += "</p><div class=\"drift-scroll\"><table class=\"drift-matrix\"><thead><tr><th>#</th><th>call</th>";
    for v in &d.versions {
        let _ = write!(
            out,
            "<th data-version=\"{0}\">{0}</th>",
            esc(&v.to_string())
        );
    }
    out += "</tr></thead><tbody>";
    for c in &d.calls {
        let _ = write!(
            out,
            "<tr class=\"drift-call\" data-call=\"{id}\"><td>{id}</td><td><code>{}</code> \
             <code class=\"args\">{}</code></td>",
            esc(&c.tool),
            esc(&arguments(c)),
            id = c.id
        );
        for v in &d.versions {
            let Some(r) = d.result(c.id, *v) else {
                out += "<td class=\"verdict none\">-</td>";
                continue;
            };
            let flag = if disagrees(r) {
                " <span class=\"disagrees\" title=\"the schema forecast disagrees\">⚑</span>"
            } else {
                ""
            };
            let successor = r.successor.as_ref().map_or(String::new(), |s| {
                format!("<br><span class=\"successor\">→ {}</span>", esc(s))
            });
            let _ = write!(
                out,
                "<td class=\"verdict v-{verdict}\" data-version=\"{}\" data-verdict=\"{verdict}\" \
                 data-forecast=\"{}\" title=\"{}\">{verdict}{successor}{flag}</td>",
                esc(&v.to_string()),
                forecast_word(r.forecast),
                esc(&r.reason),
                verdict = r.verdict,
            );
        }
        out += "</tr>";
    }
    out += "</tbody></table></div>";
    let notes: String = d
        .results
        .iter()
        .filter(|r| r.verdict != Verdict::Same)
        .map(|r| {
            format!(
                "<li class=\"drift-note\" data-call=\"{}\" data-version=\"{}\">\
                 <span class=\"verdict v-{verdict}\">{}</span> <b>#{} at {}</b>: {}</li>",
                r.call,
                esc(&r.version.to_string()),
                esc(&label(r)),
                r.call,
                esc(&r.version.to_string()),
                esc(&r.reason),
                verdict = r.verdict
            )
        })
        .collect();
    if !notes.is_empty() {
        let _ = write!(
            out,
            "<details class=\"drift-reasons\" open><summary>Why, for every call not answered the same</summary>\
             <ul class=\"drift-notes\">{notes}</ul></details>"
        );
    }
    if !d.disagreements.is_empty() {
        out += "<h4>Where the schema forecast and the replay disagree</h4><ul class=\"drift-disagreements\">";
        for x in &d.disagreements {
            let _ = write!(
                out,
                "<li data-call=\"{}\" data-version=\"{}\">#{} at {}: forecast <b>{}</b>, replay \
                 <b>{}</b>: {}</li>",
                x.call,
                esc(&x.version.to_string()),
                x.call,
                esc(&x.version.to_string()),
                forecast_word(x.forecast),
                x.verdict,
                esc(&x.why)
            );
        }
        out += "</ul>";
    }
    out + "</section>"
}

fn forecast_word(f: Forecast) -> &'static str {
    match f {
        Forecast::Ok => "ok",
        Forecast::Breaks => "breaks",
    }
}

/// The section as Markdown: the matrix as a table, reasons and disagreements as lists.
pub fn markdown(d: &ServerDrift) -> String {
    // `<tmp>`, `<time>` (normalised answers) would be read as HTML tags.
    let text = |t: &str| t.replace('<', "&lt;").replace('>', "&gt;");
    let cell = |t: &str| text(t).replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("\n### Drift of the original's calls\n\n");
    if let Some(e) = &d.error {
        return out + &format!("Could not be audited: {}\n", cell(e));
    }
    let _ = writeln!(
        out,
        "{} call(s) replayed on {} version(s): {}. {} disagreement(s) with the schema forecast (marked ⚑).\n",
        d.calls.len(),
        d.versions.len(),
        counts(d),
        d.disagreements.len()
    );
    let tags: Vec<String> = d.versions.iter().map(|v| v.to_string()).collect();
    let _ = writeln!(out, "| # | call | {} |", tags.join(" | "));
    let _ = writeln!(out, "| --- | --- |{}", " --- |".repeat(d.versions.len()));
    for c in &d.calls {
        let cells: Vec<String> = d
            .versions
            .iter()
            .map(|v| {
                d.result(c.id, *v).map_or("-".into(), |r| {
                    let flag = if disagrees(r) { " ⚑" } else { "" };
                    format!("{}{flag}", cell(&label(r)))
                })
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | `{}` {} | {} |",
            c.id,
            cell(&c.tool),
            cell(&arguments(c)),
            cells.join(" | ")
        );
    }
    let notes: Vec<&CallResult> = d
        .results
        .iter()
        .filter(|r| r.verdict != Verdict::Same)
        .collect();
    if !notes.is_empty() {
        out += "\nNot answered the same:\n\n";
        for r in notes {
            let _ = writeln!(
                out,
                "- #{} at {}: **{}** {}",
                r.call,
                r.version,
                text(&label(r)),
                text(&r.reason)
            );
        }
    }
    if !d.disagreements.is_empty() {
        out += "\nWhere the schema forecast and the replay disagree:\n\n";
        for x in &d.disagreements {
            let _ = writeln!(
                out,
                "- #{} at {}: forecast {}, replay {}: {}",
                x.call,
                x.version,
                forecast_word(x.forecast),
                x.verdict,
                text(&x.why)
            );
        }
    }
    out
}
