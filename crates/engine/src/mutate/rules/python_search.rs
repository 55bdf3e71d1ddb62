//! The search form of a decorated Python tool that answers lines of text: a new decorated
//! function (`search_notes` beside `list_notes`) that takes the tool's own parameters, written
//! as the tool writes them, and a text first; it calls the tool's function and keeps the lines
//! of its answer that contain the text, case ignored. What `search_form.rs` writes for
//! JavaScript.

use super::super::MutateError;
use super::super::prose::Note;
use super::super::python;
use super::super::splice::indent_at;
use super::Draft;
use super::python_forms::{Signature, identifier, indented, registered};
use super::search_form;
use mcpevol_core::inventory::{Span, Tool};

/// The locals the search function declares: a tool taking a parameter of one of these names
/// gets no search form (the parameter would be hidden).
const LOCALS: &[&str] = &["run", "answer", "needle", "kept", "part", "line"];

/// Where a Python search form is written from, as its check found it.
pub(super) struct PySearch<'t> {
    reg: &'t Span,
    handler: &'t Span,
    name: String,
    param: &'static str,
}

/// Whether `tool` can have a search form: a decorated Python function named with a listing
/// verb followed by what it lists, the search name free, and a text parameter name it does
/// not take.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<PySearch<'t>, &'static str> {
    if !python::registered_function(tool) {
        return Err("it is not a decorated Python function");
    }
    let name = search_form::name_for(&tool.name)
        .ok_or("its name has no listing verb followed by a noun")?;
    if all.iter().any(|t| t.name == name) {
        return Err("a tool already has the search form's name");
    }
    let param = search_form::query_name(tool)?;
    let reg = (tool.sites.registration.as_ref()).ok_or("no registration site was found")?;
    let handler = tool.handler.as_ref().ok_or("its handler was not found")?;
    Ok(PySearch {
        reg,
        handler,
        name,
        param,
    })
}

/// What the search function copies of the tool's function: its name, its parameter list as
/// written, and the names it passes on.
struct Parameters {
    function: String,
    written: String,
    /// The indent of each parameter where the list is written one per line.
    one_per_line: Option<String>,
    names: Vec<String>,
}

impl Parameters {
    /// The parameters of the function defined in `code`, or why a search form cannot pass
    /// them on (open-ended or positional-only arguments, a name the form's locals take).
    fn read(code: &str) -> Result<Parameters, &'static str> {
        let Signature {
            function,
            params,
            list: whole,
        } = Signature::read(code)?;
        let names: Vec<String> = params.into_iter().map(|(name, _)| name).collect();
        if names.iter().any(|n| LOCALS.contains(&n.as_str())) {
            return Err("a parameter of it has the name of a local of the search form");
        }
        let one_per_line = (whole.strip_prefix("(\n")).map(|rest| {
            let width = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            rest[..width].to_string()
        });
        let written = whole
            .strip_prefix('(')
            .and_then(|w| w.strip_suffix(')'))
            .unwrap_or(&whole)
            .trim()
            .trim_end_matches(',')
            .to_string();
        Ok(Parameters {
            function,
            written,
            one_per_line,
            names,
        })
    }

    /// The parameter list of a function taking `param` (a text) first, then these, laid out as
    /// they are.
    fn with_first(&self, param: &str, indent: &str) -> String {
        match (&self.one_per_line, self.written.is_empty()) {
            (_, true) => format!("{param}: str"),
            (Some(inner), false) => {
                format!("\n{inner}{param}: str,\n{inner}{},\n{indent}", self.written)
            }
            (None, false) => format!("{param}: str, {}", self.written),
        }
    }
}

/// The search function's body: `function` called with `names` passed on by name, and each
/// text of its answer cut to the lines that hold `param`'s value, case ignored.
fn body(function: &str, names: &[String], param: &str, indent: &str) -> String {
    let passed: Vec<String> = names.iter().map(|n| format!("{n}={n}")).collect();
    let lines = [
        (0, format!("run = getattr({function}, \"fn\", {function})")),
        (0, format!("answer = run({})", passed.join(", "))),
        (0, "if hasattr(answer, \"__await__\"):".to_string()),
        (1, "answer = await answer".to_string()),
        (0, format!("needle = str({param}).lower()")),
        (0, String::new()),
        (0, "def kept(text):".to_string()),
        (
            1,
            "return \"\\n\".join(line for line in text.split(\"\\n\") if needle in line.lower())"
                .to_string(),
        ),
        (0, String::new()),
        (0, "if isinstance(answer, str):".to_string()),
        (1, "return kept(answer)".to_string()),
        (0, "if isinstance(answer, (list, tuple)):".to_string()),
        (
            1,
            "return [kept(part) if isinstance(part, str) else part for part in answer]".to_string(),
        ),
        (0, "return answer".to_string()),
    ];
    indented(&lines, indent)
}

impl Draft<'_> {
    /// Writes the search form of `tool` after its function; returns its name, or None (and
    /// writes nothing) where its parameters cannot be passed on.
    pub(super) fn add_python_search(
        &mut self,
        form: PySearch<'_>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        let PySearch {
            reg,
            handler,
            name: new,
            param,
        } = form;
        let text = self.e.text(self.root, &handler.file)?.to_string();
        let Ok(params) = Parameters::read(&text[handler.bytes.0..handler.bytes.1]) else {
            return Ok(None);
        };
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let region = &text[reg.bytes.0..reg.bytes.1];
        let indent = indent_at(&text, reg.bytes.0).to_string();
        let about = self.writer().note(&Note::Search {
            of: &tool.name,
            param,
        });
        let function = identifier(&new, &text);
        let signature = params.with_first(param, &indent);
        let def = format!(
            "{indent}async def {function}({signature}):\n{}",
            body(&params.function, &params.names, param, &indent)
        );
        let code = registered(
            region,
            &indent,
            &params.function,
            (&new, &about),
            (&function, &def),
        )?;
        let end = handler.bytes.1.max(reg.bytes.1);
        self.e
            .insert(self.root, &reg.file, end, code.trim_end().to_string())?;
        self.record_search(&new, tool, param);
        Ok(Some(new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameters_are_copied_as_written_and_passed_on_by_name() {
        let p = Parameters::read(
            "async def list_notes(\n    folder: Annotated[str, Field(description=\"x\")],\n    limit: int = 10,\n    *,\n    ctx: Context,\n) -> str:\n    return ''\n",
        )
        .unwrap();
        assert_eq!(p.function, "list_notes");
        assert_eq!(p.names, ["folder", "limit", "ctx"]);
        assert!(p.written.starts_with("folder: Annotated["), "{}", p.written);
        assert!(p.written.ends_with("ctx: Context"), "{}", p.written);
        let b = body(&p.function, &p.names, "query", "");
        assert!(
            b.contains("answer = run(folder=folder, limit=limit, ctx=ctx)"),
            "{b}"
        );
        assert_eq!(
            p.with_first("query", ""),
            format!("\n    query: str,\n    {},\n", p.written)
        );
        let flat = Parameters::read("def f(a: int, b=2):\n    pass\n").unwrap();
        assert_eq!(flat.with_first("query", ""), "query: str, a: int, b=2");
        assert!(Parameters::read("def f(*args):\n    pass\n").is_err());
        assert!(Parameters::read("def f(answer: str):\n    pass\n").is_err());
    }
}
