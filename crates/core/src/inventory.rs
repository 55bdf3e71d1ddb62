//! The anchored view of a server package: which tools it defines, where, and with what schema.
//!
//! These types are the output of `anchor` and the input of every mutator, so their JSON form is
//! part of the command-line contract (`mcpevol anchor --json`).

use serde::{Deserialize, Serialize};

/// Everything anchoring found in one package.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Inventory {
    /// The package folder as the user gave it.
    pub root: String,
    /// One entry per tool name the server would report, sorted by name.
    pub tools: Vec<Tool>,
    /// Files skipped or only partly understood, each naming the file and the reason.
    pub warnings: Vec<String>,
    /// Tools registered in files the launched entry never reaches (another server of the
    /// package, sources shipped beside the build, examples): never offered to an operator.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_reached: Vec<NotReached>,
}

/// A tool definition in a file the launch does not reach, by name and file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NotReached {
    pub name: String,
    pub file: String,
}

impl Inventory {
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }
}

/// How a tool is wired into the server, following Appendix F.2 of the MCPEvol-Bench paper.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// `server.tool(...)`, `registerTool(...)`, `addTool({...})`, class-based tools, and any
    /// helper given a literal name, a tool configuration and a handler.
    Register,
    /// Tool objects listed by a ListTools handler, dispatched by `case "name":`.
    Switch,
    /// The same, dispatched by `if (name === "name")` chains.
    If,
    /// Definition and handler live in different files.
    CrossFile,
    /// A definition whose handler was not found, or is joined by a same-file map.
    Other,
    /// A builder chain that ends in a registration:
    /// `server.tool("name").description("...").input({...}).handler(fn)`.
    Builder,
}

impl Style {
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Register => "register",
            Style::Switch => "switch",
            Style::If => "if",
            Style::CrossFile => "cross-file",
            Style::Other => "other",
            Style::Builder => "builder",
        }
    }
}

/// A range of whole lines in one file: 1-based, inclusive, path relative to the package root.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub file: String,
    pub start_line: usize,
    pub end_line: usize,
    /// Byte offsets of the same node, so that snippets can be cut without re-parsing.
    #[serde(skip)]
    pub bytes: (usize, usize),
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    pub name: String,
    pub style: Style,
    pub definition: Span,
    pub handler: Option<Span>,
    pub description: Option<String>,
    /// Parameters, where the input schema is written out literally (zod shape or JSON schema).
    pub params: Vec<Param>,
    #[serde(skip)]
    pub sites: Sites,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// `string`, `number`, `boolean`, `array`, `object`, `enum`, ... when it can be read.
    #[serde(rename = "type")]
    pub ty: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    /// Bounds, default, allowed values and format the schema declares: what a description may
    /// say about the parameter. Not part of the JSON contract.
    #[serde(skip)]
    pub shape: ParamShape,
}

/// What a parameter's schema declares beyond its type, as written (numbers and values keep
/// their source spelling, so that a description quotes them exactly).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamShape {
    /// The lower bound: of the value (numbers), its length (strings) or its item count (arrays).
    pub min: Option<String>,
    pub max: Option<String>,
    /// `.int()` or `type: "integer"`.
    pub integer: bool,
    pub default: Option<String>,
    /// The allowed values of an enum, as JSON-ish literals without quotes.
    pub values: Vec<String>,
    /// A string format the schema checks: `email`, `url`, `uuid`, `date-time`, ...
    pub format: Option<String>,
    /// The type of an array's items, when it is a plain one (`string`, `number`, `object`).
    pub items: Option<String>,
    /// The keys of an object parameter (or of an array's object items), when written out.
    pub keys: Vec<String>,
}

/// The places in the source a mutator edits for one tool. Not part of the JSON contract: spans
/// into one version of the files, recomputed by anchoring each round.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sites {
    /// The name expression in the definition: a string literal or the constant that holds it.
    pub name: Option<Span>,
    /// The name expressions where calls are routed (case labels, compared operands, map keys).
    pub routes: Vec<Route>,
    /// What to delete to unregister the tool: a registration statement, an array element, a pair.
    pub registration: Option<Span>,
    /// The description expression in the definition, read as what it is.
    pub description: Option<DescriptionSite>,
    pub schema: Option<SchemaSite>,
    /// A definition's JSON input schema as its `inputSchema` entry writes it, whatever it is (a
    /// literal, a constant, `zodToJsonSchema(ArgsSchema)`): what a batch form's `items` take.
    pub input_schema: Option<Span>,
    /// The constant a definition object is held in (`AIR_QUALITY_TOOL`), or the class a tool
    /// is an instance of, when it is.
    pub holder: Option<String>,
    /// The whole declaration of that constant or class, to copy it under another name.
    pub declaration: Option<Span>,
    /// The class a tool class extends, whose schema it may inherit.
    pub extends: Option<String>,
    /// The keys of the object schema the definition declares as its output (`outputSchema`),
    /// which is what its structured result holds.
    pub output_keys: Vec<String>,
    /// The running server does not show parameter descriptions the source gives (its schema
    /// conversion drops them), so description and constraint edits on parameters would not be
    /// seen by clients. Set by comparing with the live tool list.
    pub opaque_params: bool,
    /// A Python decorator of the server's own making that registers the tool
    /// (`@register_tool("x")`, `@tools.reader("Title")`): it takes no `name=` of FastMCP's.
    pub helper: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub kind: RouteKind,
    /// The name expression itself (`"echo"` in `case "echo":`).
    pub label: Span,
    /// The whole routing construct: the case clause, the comparison, the map entry.
    pub site: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    Case,
    Compare,
    MapEntry,
}

/// The object literal whose entries are the tool's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaSite {
    pub object: Span,
    /// JSON schema `properties` (true) or a zod shape (false).
    pub json: bool,
    /// The JSON schema object holding `properties` (for its `required` array), when json.
    pub json_root: Option<Span>,
    /// How this file spells zod (`z`, `zod_1.z`, `import_v4.z`), read off an existing parameter.
    pub zod: Option<String>,
    pub params: Vec<ParamSite>,
    /// How a Python tool writes its parameters; None in JavaScript and TypeScript.
    pub python: Option<PyParams>,
    /// The shapes this one spreads (`{ ...BaseArgs, body }`), where their parameters are
    /// declared: an edit there changes this tool too.
    pub spreads: Vec<Span>,
}

/// The ways a Python server writes a tool's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyParams {
    /// A function signature with type hints (FastMCP): `object` is the `parameters` node,
    /// each entry a parameter.
    Signature,
    /// A pydantic model's annotated fields: `object` is the class body, each entry a field.
    Model,
    /// A JSON schema written as a dict literal (`inputSchema={...}`): `object` is the
    /// `properties` dict, as for `json`.
    Dict,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParamSite {
    pub name: String,
    /// The whole `name: value` entry.
    pub entry: Span,
    pub value: Span,
    /// The description expression, when there is one: the value of `description` or the
    /// argument of `.describe(...)`.
    pub description: Option<DescriptionSite>,
    /// For zod: the innermost type call (`z.string()`), where constraints attach.
    pub base: Option<Span>,
    /// The running server shows a description for this parameter, so an edit of it is seen.
    /// Set by comparing with the live tool list.
    pub live_described: bool,
}

/// A description as it is written: where, in what form, and its text when that can be read
/// without running the code. Edits replace exactly this expression (or the constant's value it
/// names) in its own form, so that quoting and line structure survive.
#[derive(Debug, Clone, PartialEq)]
pub struct DescriptionSite {
    /// The expression itself, where the tool or parameter takes it.
    pub span: Span,
    pub form: DescriptionForm,
    /// Its value; None when the form is opaque or a constant that did not resolve.
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DescriptionForm {
    /// A quoted string literal, `"..."` or `'...'`.
    Literal,
    /// A template literal without substitutions; it may span lines.
    Template,
    /// Literals (and names of string constants) joined with `+`, in order.
    Concat(Vec<ConcatPart>),
    /// A name that holds the text (`DESCRIPTION`, `texts.search`): edited where it is declared,
    /// and only when no other tool or parameter reads it.
    Constant {
        name: String,
        /// The declared value (a literal, template or concatenation), when it was found.
        declared_at: Option<Box<DescriptionSite>>,
        /// Another description reads the same constant.
        shared: bool,
    },
    /// A Python docstring: its text as `inspect.cleandoc` reads it, rewritten whole in its own
    /// layout (quotes, indentation, where the closing quotes stand).
    Docstring,
    /// An expression anchoring does not understand (a call, a template with substitutions):
    /// no operator rewrites it.
    Opaque(&'static str),
}

/// One operand of a `+` concatenation of description text.
#[derive(Debug, Clone, PartialEq)]
pub struct ConcatPart {
    pub span: Span,
    /// A literal (quoted or template) holds its own text; a name is resolved by linking.
    pub literal: bool,
    /// The constant's name, for a name part.
    pub name: Option<String>,
    pub text: Option<String>,
}

impl DescriptionSite {
    /// Why this description cannot be edited where it is written, or Ok when it can.
    pub fn editable(&self) -> Result<(), &'static str> {
        match &self.form {
            DescriptionForm::Opaque(why) => Err(why),
            _ if self.text.is_none() => Err("its description names a value anchoring cannot read"),
            DescriptionForm::Constant { shared: true, .. } => {
                Err("its description is a constant that another description reads too")
            }
            DescriptionForm::Constant {
                declared_at: None, ..
            } => Err("its description is a constant whose declaration was not found"),
            DescriptionForm::Constant {
                declared_at: Some(d),
                ..
            } => d.editable(),
            DescriptionForm::Concat(parts) if !parts.iter().any(|p| p.literal) => {
                Err("its description joins constants with no literal text to edit")
            }
            _ => Ok(()),
        }
    }
}
