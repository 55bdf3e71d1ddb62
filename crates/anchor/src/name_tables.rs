//! Tables that route calls by tool name without naming a handler (`{ generate_bar_chart: "bar" }`,
//! read as `CHART_TYPE_MAP[name]` in the one CallTool handler): their entries are routes of the
//! tools they name.

use std::collections::HashSet;

use super::facts::FileFacts;
use super::syntax::Expr;
use mcpevol_core::inventory::Tool;

/// Adds to each tool the entries of the name tables that route calls by its name: a table of
/// at least two entries, most of whose keys (resolved by `resolve`, in the table's file) are
/// listed tools' names. A copy of a tool gets an entry beside its source's, a renamed tool its
/// entry renamed, a removal takes the entry out. Without them, every copy on such a server was
/// listed but answered "Unknown tool".
pub(super) fn route(
    tools: &mut [Tool],
    files: &[(String, FileFacts)],
    resolve: impl Fn(&Expr, &str) -> Option<String>,
) {
    let listed: HashSet<String> = tools.iter().map(|t| t.name.clone()).collect();
    for (rel, facts) in files {
        for table in &facts.name_tables {
            let keys: Vec<Option<String>> = table.iter().map(|(k, _)| resolve(k, rel)).collect();
            let hits = keys
                .iter()
                .filter(|k| k.as_ref().is_some_and(|k| listed.contains(k)))
                .count();
            if hits < 2 || 2 * hits <= table.len() {
                continue;
            }
            for ((_, route), key) in table.iter().zip(&keys) {
                let Some(tool) = tools.iter_mut().find(|t| Some(&t.name) == key.as_ref()) else {
                    continue;
                };
                if !tool.sites.routes.iter().any(|r| r.site == route.site) {
                    tool.sites.routes.push(route.clone());
                }
            }
        }
    }
}
