//! Anchoring registration styles met on real servers, each in a small package written here.

use crate::common;

use mcpevol::anchor::anchor;
use mcpevol::inventory::{Inventory, Tool};

fn tool<'i>(inventory: &'i Inventory, name: &str) -> &'i Tool {
    inventory
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` not anchored: {:?}", names(inventory)))
}

fn names(inventory: &Inventory) -> Vec<&str> {
    inventory.tools.iter().map(|t| t.name.as_str()).collect()
}

fn params(tool: &Tool) -> Vec<(&str, bool)> {
    tool.params
        .iter()
        .map(|p| (p.name.as_str(), p.required))
        .collect()
}

/// `server.tool(name, "Run on " + os.platform(), { ... }, cb)`: the description is text joined
/// with a value known only at run time. It still sits in the description's place, so the
/// object after it is the schema; read as the schema, it left the tools with no parameters.
#[test]
fn a_description_joined_with_a_runtime_value_leaves_the_schema_after_it_read() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "cmds", "version": "1.0.0", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "const os = require('os');\nconst { z } = require('zod');\n\
             server.tool('run_command', 'Run a command on this ' + os.platform() + ' machine', {\n\
             \x20   command: z.string().describe('Command with args'),\n\
             \x20   cwd: z.string().optional().describe('Working directory'),\n\
             }, async (args) => run(args));\n\
             server.tool('greet', `Greet on ${os.hostname()}`, { who: z.string() }, async (a) => a);\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(
        params(tool(&inventory, "run_command")),
        [("command", true), ("cwd", false)]
    );
    assert_eq!(params(tool(&inventory, "greet")), [("who", true)]);
}

/// A tool module that returns `{ name, config, handler }` (registerTool's three arguments as
/// one object, registered by a framework the package depends on), its `config` declared in
/// the module with the description and a shorthand `inputSchema`, its handler a function of
/// the factory. A prompt module of the same form (`argsSchema` in its config) is not a tool.
#[test]
fn a_tool_module_returning_name_config_and_handler_is_anchored_with_its_schema_and_handler() {
    let tool_module = "import { z } from 'zod';\n\
        const inputSchema = z.object({\n\
        \x20   text: z.string().describe('Text to measure'),\n\
        \x20   size: z.number().optional().describe('Font size'),\n\
        });\n\
        const config = {\n\
        \x20   title: 'Measure',\n\
        \x20   description: 'Measure text before rendering.',\n\
        \x20   inputSchema,\n\
        };\n\
        export default function createTool() {\n\
        \x20   async function handler(args) {\n\
        \x20       return { content: [{ type: 'text', text: String(args.text.length) }] };\n\
        \x20   }\n\
        \x20   return { name: 'text-measure', config, handler };\n\
        }\n";
    let prompt_module = "export default function createPrompt() {\n\
        \x20   const config = { description: 'How to fetch results', argsSchema: {} };\n\
        \x20   return { name: 'fetching', config, handler: async () => ({ messages: [] }) };\n\
        }\n";
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "pdfs", "version": "1.0.0", "type": "module", "main": "dist/index.js" }"#,
        ),
        ("dist/tools/text-measure.js", tool_module),
        ("dist/prompts/fetching.js", prompt_module),
        (
            "dist/index.js",
            "import measure from './tools/text-measure.js';\n\
             import fetching from './prompts/fetching.js';\n\
             registerTools(server, [measure()]);\nregisterPrompts(server, [fetching()]);\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["text-measure"]);
    let measure = tool(&inventory, "text-measure");
    assert_eq!(
        measure.description.as_deref(),
        Some("Measure text before rendering.")
    );
    assert_eq!(params(measure), [("text", true), ("size", false)]);
    let handler = measure.handler.as_ref().expect("a handler");
    let source = std::fs::read_to_string(dir.path().join(&handler.file)).unwrap();
    assert!(
        source[handler.bytes.0..handler.bytes.1].contains("args.text.length"),
        "the handler span is not the factory's handler function"
    );
}
