//! Inline SVG bar charts for the report: horizontal bars, optionally stacked, drawn with the
//! page's own CSS classes, no script and no external resource.

use super::escape::esc;

const WIDTH: f64 = 460.0;
const LABEL_WIDTH: f64 = 100.0;
const VALUE_WIDTH: f64 = 80.0;
const BAR_HEIGHT: f64 = 18.0;
const GAP: f64 = 6.0;

/// One bar: a label and its segments (value, CSS class), drawn left to right.
pub struct Bar {
    pub label: String,
    pub segments: Vec<(u64, &'static str)>,
}

/// A chart with `id`, titled `title`, one row per bar; `legend` names the segment classes.
pub fn bar_chart(id: &str, title: &str, bars: &[Bar], legend: &[(&str, &str)]) -> String {
    let max = bars
        .iter()
        .map(|b| b.segments.iter().map(|s| s.0).sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1);
    let legend_height = if legend.is_empty() { 0.0 } else { 22.0 };
    let height = legend_height + bars.len().max(1) as f64 * (BAR_HEIGHT + GAP) + GAP;
    let span = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
    let mut out = format!(
        "<svg id=\"{id}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" \
         height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{t}\">\
         <title>{t}</title>",
        t = esc(title)
    );
    let mut x = LABEL_WIDTH;
    for (class, name) in legend {
        out += &format!(
            "<rect class=\"{class}\" x=\"{x}\" y=\"4\" width=\"12\" height=\"12\"/>\
             <text class=\"legend\" x=\"{}\" y=\"14\">{}</text>",
            x + 16.0,
            esc(name)
        );
        x += 24.0 + 7.0 * name.len() as f64;
    }
    if bars.is_empty() {
        out += &format!(
            "<text class=\"label\" x=\"{LABEL_WIDTH}\" y=\"{}\">none</text>",
            legend_height + BAR_HEIGHT
        );
    }
    for (i, bar) in bars.iter().enumerate() {
        let y = legend_height + GAP + i as f64 * (BAR_HEIGHT + GAP);
        out += &format!(
            "<g class=\"bar\" data-label=\"{l}\"><text class=\"label\" x=\"{}\" y=\"{}\" \
             text-anchor=\"end\">{l}</text>",
            LABEL_WIDTH - 6.0,
            y + BAR_HEIGHT - 5.0,
            l = esc(&bar.label)
        );
        let mut x = LABEL_WIDTH;
        for (value, class) in &bar.segments {
            let w = span * *value as f64 / max as f64;
            if *value > 0 {
                out += &format!(
                    "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" \
                     height=\"{BAR_HEIGHT}\"><title>{}: {value}</title></rect>",
                    esc(&bar.label)
                );
            }
            x += w;
        }
        let total: u64 = bar.segments.iter().map(|s| s.0).sum();
        let shown: Vec<String> = bar.segments.iter().map(|s| s.0.to_string()).collect();
        let text = if bar.segments.len() > 1 {
            format!("{total} ({})", shown.join("+"))
        } else {
            total.to_string()
        };
        out += &format!(
            "<text class=\"value\" x=\"{:.1}\" y=\"{}\" data-value=\"{total}\">{text}</text></g>",
            x + 4.0,
            y + BAR_HEIGHT - 5.0
        );
    }
    out + "</svg>"
}
