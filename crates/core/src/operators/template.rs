//! The starting point of a new operator file (`mcpevol operators new`): every field explained
//! where it is written, so an author needs no other page to get a file that passes the check.

/// A commented operator file for `id` and `name` that passes [`super::check_path`] as written.
/// Its contract is the one of a description-only change; edit it to say what yours does.
pub fn template(id: &str, name: &str) -> String {
    TEMPLATE
        .replace("@ID@", id)
        .replace("@NAME@", &name.replace('"', "'"))
}

const TEMPLATE: &str = r#"+++
# The operator's id: a letter, then letters, digits, `_` or `-`. Built-in ids (O1-O11) are taken;
# `--operator @ID@` chooses this operator, and commits carry it in `Mcpevol-Operator`.
id = "@ID@"
# A short name, shown by `mcpevol operators list` and in `{{operator_name}}`.
name = "@NAME@"
# The level the change works at: "TOOL" (tools appear or go), "PARAM" (parameters change)
# or "DESC" (only descriptions change).
level = "DESC"
# The evolution patterns of the MCPEvol-Bench study (P1-P18) a round of this operator produces;
# `mcpevol diff` shows the patterns of a real change. May be empty.
patterns = ["P1"]
# One sentence: what one round does. The model reads it in the operator menu when it chooses.
summary = "Rewrites one tool's description."

# The schema change a round must show in the live tool list, checked after every attempt;
# `{{contract}}` gives it to the model in words. Change kinds: tool-added, tool-removed,
# tool-renamed, tool-description-changed, param-added, param-removed, param-description-changed,
# param-constraint-changed, param-required-changed, param-type-changed, param-default-changed,
# tool-title-changed.
[contract]
# Every change must be of one of these kinds (leave out to allow any kind).
allow = ["tool-description-changed"]
# Kinds that must occur, each between min (default 1) and max (default: no limit) times.
require = [{ kind = "tool-description-changed", min = 1, max = 1 }]
# Alternatives, at least one group holding in full, e.g.
# require_any = [[{ kind = "param-added" }], [{ kind = "param-removed" }]]
# How many distinct tools the round may touch.
tools = { min = 1, max = 1 }
# added_params = "optional"   # added parameters must all be optional (or "required")
# targets_only = true         # the default: only the round's target tools may change
+++

# @ID@ @NAME@

<!-- Comments like this one are notes for authors: the model never sees them. The four sections
below are required in this order of importance: `## Prompt` (the template the model receives)
and, when the prompt includes them, `## Examples`, `## Function` and `## Instructions`. Inside
a section, use `###` for headings: a `## ` heading starts the next section. Check the file with
`mcpevol operators check FILE`. -->

## Examples

<!-- One small before/after of this change on a tool of an MCP server, in JavaScript, written
as the SEARCH/REPLACE blocks you expect back. The model imitates it closely, so keep it
plausible and minimal. -->

`src/index.js` registered this tool:

src/index.js
<<<<<<< SEARCH
server.tool("get_forecast", "Get the forecast", { city: z.string() }, async ({ city }) => {
=======
server.tool("get_forecast", "Get today's forecast for a city: temperature, sky and wind. Use list_cities for the cities it knows.", { city: z.string() }, async ({ city }) => {
>>>>>>> REPLACE

## Function

<!-- What one round does, why a maintainer would do it, and what it must preserve. This is
the definition the model follows, and `{{function}}` in the prompt. -->

Rewrites the description of one tool so that it says more precisely what the tool does, when
to use it and what it returns. The tool's name, parameters and behaviour stay as they are.

## Instructions

<!-- How to edit the files. Keep the answer format below exactly: mcpevol reads these blocks.
Add what is specific to this operator as the first items. -->

- Change the description text of the target tool only, where the code defines it.
- Answer with SEARCH/REPLACE blocks and nothing else. Each block is the file's path (as in the
  `---` header of the snippets) on its own line, then:

```
<<<<<<< SEARCH
exact existing lines
=======
new lines
>>>>>>> REPLACE
```

- SEARCH copies whole lines of the file exactly, indentation included, without the snippet
  headers; it must occur once in the file, so add a neighbouring line when a line repeats.
- Keep every SEARCH short: the lines that change and just enough context to be unique.
- Keep the server runnable, and change nothing this operator does not ask for: every other tool
  keeps its name, description, parameters and behaviour.

## Prompt

<!-- The template of the mutation prompt. Placeholders: {{server_name}}, {{tool_list}},
{{targets}}, {{snippets}}, {{previous_rounds}}, {{operator_id}}, {{operator_name}},
{{contract}}, and this file's own sections {{examples}}, {{function}}, {{instructions}}. -->

You maintain the MCP server `{{server_name}}` and are preparing its next release, which makes
one change of the kind {{operator_id}} {{operator_name}} to: {{targets}}.

### The change

{{function}}

After the release, the server's tool list is compared with today's and must satisfy:

{{contract}}

### The server today

Tools it serves:

{{tool_list}}

Changes in earlier releases:

{{previous_rounds}}

Source of the target tools, from every file involved:

{{snippets}}

### An example of this kind of change

{{examples}}

### How to answer

{{instructions}}
"#;
