//! A search form of a tool that answers lines of text (`list_notes`): a new tool named with the
//! tool's listing verb made `search` (`search_notes`), which takes the tool's arguments and a
//! text, and answers the tool's answer with only the lines that contain the text. Written
//! where the tool is registered with its name, description, zod shape and handler in one call
//! (the copy's name, description, shape and handler rewritten). The rules write it only for a
//! tool whose previous answer had several lines of text, not JSON (a line of JSON is no entry).

use super::super::MutateError;
use super::super::batch_form::{self, BatchSites};
use super::super::prose::Note;
use super::super::splice::{append_entry, find_word, indent_at, js_string};
use super::{Draft, cut};
use mcpevol_core::inventory::Tool;
use mcpevol_core::words;
use mcpevol_oracle::validate::Effect;

/// Verbs of a tool that shows what there is, whose answer a search narrows (`list_notes`,
/// `get-env`, `readLogs`).
const LISTING_VERBS: &[&str] = &["list", "get", "read", "show", "view", "fetch", "browse"];

/// Names of the new text parameter, the first the tool does not take already.
const QUERY_NAMES: &[&str] = &["query", "filter", "contains"];

/// The locals the search form's handler declares, kept off the names its copied handler uses
/// (a local named as a variable the copy reads from its module would hide it).
const LOCALS: &[&str] = &[
    "runSearch",
    "searchOptions",
    "searchAnswer",
    "searchNeedle",
    "searchParts",
];

/// Where a search form is written from, as its check found it.
pub(super) struct SearchForm<'t> {
    sites: BatchSites<'t>,
    name: String,
    param: &'static str,
}

/// Whether `tool` can have a search form: a listing verb followed by what it lists, a free
/// name with the verb made `search`, a text parameter name it does not take, and its
/// registration written out in one call.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<SearchForm<'t>, &'static str> {
    let name = name_for(&tool.name).ok_or("its name has no listing verb followed by a noun")?;
    if all.iter().any(|t| t.name == name) {
        return Err("a tool already has the search form's name");
    }
    let param = query_name(tool)?;
    let sites = batch_form::inline_sites(tool)?;
    Ok(SearchForm { sites, name, param })
}

/// The name of a search form's text parameter: the first of [`QUERY_NAMES`] `tool` does not
/// take already.
pub(super) fn query_name(tool: &Tool) -> Result<&'static str, &'static str> {
    (QUERY_NAMES.iter().copied())
        .find(|q| !tool.params.iter().any(|p| p.name == *q))
        .ok_or("it takes every parameter name a search form would add")
}

/// The search form's name: `name` with its first listing verb (one followed by another word)
/// made `search`, in the verb's own case: `list_notes` gives `search_notes`, `getEnv`
/// `searchEnv`, `mcp_notes_listAll` `mcp_notes_searchAll`.
pub(super) fn name_for(name: &str) -> Option<String> {
    let spans = words::word_spans(name);
    let (a, b) = spans[..spans.len().saturating_sub(1)]
        .iter()
        .copied()
        .find(|&(a, b)| LISTING_VERBS.contains(&name[a..b].to_ascii_lowercase().as_str()))?;
    let verb = match name[a..].starts_with(|c: char| c.is_ascii_uppercase()) {
        true => "Search",
        false => "search",
    };
    Some(format!("{}{verb}{}", &name[..a], &name[b..]))
}

/// The search form's handler: the tool's own (`code`, an expression) held in a local, called
/// with the arguments but `param`, its text parts cut to the lines holding `param`'s value,
/// compared without regard to case; an error answer as it is. A plain function, as a
/// maintainer writes it, and no wrapper. None where the copy uses a name it would declare.
fn handler(code: &str, indent: &str, param: &str) -> Option<String> {
    if LOCALS.iter().any(|l| find_word(code, l).is_some()) {
        return None;
    }
    let lines = [
        (0, "async (args, ...rest) => {".to_string()),
        (1, format!("const runSearch = {};", batch_form::nested(code))),
        (1, format!("const {{ {param}: searchNeedle, ...searchOptions }} = args ?? {{}};")),
        (1, "const searchAnswer = await runSearch(searchOptions, ...rest);".to_string()),
        (1, "if (searchAnswer?.isError) {".to_string()),
        (2, "return searchAnswer;".to_string()),
        (1, "}".to_string()),
        (1, "const searchParts = Array.isArray(searchAnswer?.content) ? searchAnswer.content : typeof searchAnswer === \"string\" ? [{ type: \"text\", text: searchAnswer }] : [];".to_string()),
        (1, "return {".to_string()),
        (2, "content: searchParts.map((part) => part?.type !== \"text\" ? part : {".to_string()),
        (3, "...part,".to_string()),
        (3, "text: part.text.split(\"\\n\").filter((line) => line.toLowerCase().includes(String(searchNeedle).toLowerCase())).join(\"\\n\"),".to_string()),
        (2, "}),".to_string()),
        (1, "};".to_string()),
        (0, "}".to_string()),
    ];
    Some(batch_form::laid_out(&lines, indent))
}

impl Draft<'_> {
    /// Writes the search form of `tool`; returns its name, or None (and writes nothing) where
    /// its handler's copy uses a name the form's handler declares.
    pub(super) fn add_search(
        &mut self,
        plan: SearchForm<'_>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        let SearchForm {
            sites,
            name: new,
            param,
        } = plan;
        let reg = sites.registration;
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let code = &text[sites.handler.bytes.0..sites.handler.bytes.1];
        let Some(handler) = handler(code, indent_at(&text, sites.handler.bytes.0), param) else {
            return Ok(None);
        };
        let about = self.writer().note(&Note::Search {
            of: &tool.name,
            param,
        });
        let entry = format!(
            "{param}: {}.string().min(1).describe({})",
            sites.zod,
            js_string("Only lines that contain this text are returned (case does not matter)")
        );
        let object = &sites.schema.object;
        let last = sites.schema.params.last().map(|p| &p.entry);
        let (at, mut added) = append_entry(&text, object, last, &entry);
        // Entries on their own lines, each ending in a comma: the new one too.
        if added.starts_with('\n') && text[..at].ends_with(',') {
            added.push(',');
        }
        let shape = format!(
            "{}{added}{}",
            &text[object.bytes.0..at],
            &text[at..object.bytes.1]
        );
        let cuts = vec![
            (sites.name.bytes, js_string(&new)),
            (sites.description.span.bytes, js_string(&about)),
            (object.bytes, shape),
            (sites.handler.bytes, handler),
        ];
        let copy = batch_form::without_output(&cut(&text, reg, cuts));
        self.insert_beside(&text, reg, &copy)?;
        self.record_search(&new, tool, param);
        Ok(Some(new))
    }

    /// Records `new` as added, claimed as the search form of `tool` taking `param`.
    pub(super) fn record_search(&mut self, new: &str, tool: &Tool, param: &str) {
        self.added.push(new.to_string());
        self.effects.push(Effect::Search {
            tool: new.to_string(),
            source: tool.name.clone(),
            param: param.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_form_is_named_with_the_listing_verb_made_search_in_its_case() {
        assert_eq!(name_for("list_notes").as_deref(), Some("search_notes"));
        assert_eq!(name_for("get-env").as_deref(), Some("search-env"));
        assert_eq!(
            name_for("getRecentLogs").as_deref(),
            Some("searchRecentLogs")
        );
        assert_eq!(
            name_for("mcp_notes_listAll").as_deref(),
            Some("mcp_notes_searchAll")
        );
        // No listing verb, or nothing after it.
        assert_eq!(name_for("echo"), None);
        assert_eq!(name_for("create_note"), None);
        assert_eq!(name_for("list"), None);
    }

    #[test]
    fn the_search_handler_keeps_its_locals_off_the_copys_names() {
        let h = handler("async ({ a }) => ({ content: [] })", "  ", "query").unwrap();
        assert!(h.contains("const { query: searchNeedle, ...searchOptions } = args ?? {};"));
        assert!(h.contains("\n    const runSearch = async ({ a }) => ({ content: [] });"));
        assert!(handler("async () => searchParts()", "", "query").is_none());
    }
}
