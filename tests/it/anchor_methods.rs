//! Anchoring four more registration styles met on fresh held-out sets (heldout-42 and 43), each
//! in a small package written here: a server class's own registering method called
//! positionally, tool modules that export their name and description in a `metadata` object, a
//! local function that registers whatever tool its caller names, and Python functions marked
//! with a tool definition for a loop to register.

use crate::common;
use crate::common::{anchored_tool as tool, tool_names as names};

use mcpevol::anchor::anchor;
use mcpevol::inventory::Tool;

fn params(tool: &Tool) -> Vec<&str> {
    tool.params.iter().map(|p| p.name.as_str()).collect()
}

/// `this.addJsonOutputTool("list_clusters", "Lists clusters", { ... }, cb)`: a method of the
/// server's own class that wraps `this.tool(name, description, schema, cb)`. Each call of a
/// method named for tools with a literal name, a description and a handler last is a tool, as
/// `tool(...)` reads it; the method's own inner call, on its parameters, is not.
#[test]
fn a_servers_own_method_called_as_tool_is_called_registers_each_tool() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "ops", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n\
             import { z } from 'zod';\n\
             class Server extends McpServer {\n\
             \x20 constructor() {\n\
             \x20   super({ name: 'ops', version: '1' });\n\
             \x20   this.addJsonOutputTool('list_clusters', 'Lists the clusters', {\n\
             \x20     name: z.string().optional().describe('Filter by name')\n\
             \x20   }, async ({ name }) => ({ clusters: [] }));\n\
             \x20   this.addJsonOutputTool('sync_application', `Syncs an application`, {\n\
             \x20     applicationName: z.string(), dryRun: z.boolean().optional()\n\
             \x20   }, async (args) => ({ synced: true }));\n\
             \x20   this.addToolWithReadAccess('teams-list', 'Lists the teams', async () => ({ teams: [] }));\n\
             \x20   this.addToolWithWriteAccess('epics-create', 'Create a new epic.', {\n\
             \x20     name: z.string()\n\
             \x20   }, { destructiveHint: false }, async ({ name }) => ({ created: name }));\n\
             \x20   this.traceTool('not-a-tool', 'a log line');\n\
             \x20 }\n\
             \x20 addJsonOutputTool(name, description, paramsSchema, cb) {\n\
             \x20   this.tool(name, description, paramsSchema, async (...args) => ({\n\
             \x20     content: [{ type: 'text', text: JSON.stringify(await cb(...args)) }]\n\
             \x20   }));\n\
             \x20 }\n\
             }\n\
             new Server();\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    // Three to five arguments, the handler last; a description is never read as a name.
    assert_eq!(
        names(&inventory),
        [
            "epics-create",
            "list_clusters",
            "sync_application",
            "teams-list"
        ]
    );
    assert_eq!(params(tool(&inventory, "epics-create")), ["name"]);
    assert_eq!(
        params(tool(&inventory, "sync_application")),
        ["applicationName", "dryRun"]
    );
    let list = tool(&inventory, "list_clusters");
    assert_eq!(list.description.as_deref(), Some("Lists the clusters"));
    assert!(list.handler.is_some());
}

/// Tool modules of the form `export const metadata = { name, description }` beside
/// `export const inputSchema`, imported as namespaces and listed by a request handler
/// (`tools.map((t) => ({ name: t.metadata.name, ... }))`).
#[test]
fn tool_modules_named_in_an_exported_metadata_object_are_tools() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "dev", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "import * as docs from './tools/docs.js';\n\
             import * as index from './tools/index-servers.js';\n\
             const tools = [docs, index];\n\
             server.setRequestHandler(ListToolsRequestSchema, async () => ({\n\
             \x20 tools: tools.map((tool) => ({ name: tool.metadata.name, description: tool.metadata.description }))\n\
             }));\n\
             server.setRequestHandler(CallToolRequestSchema, async (request) => {\n\
             \x20 const tool = tools.find((t) => t.metadata.name === request.params.name);\n\
             \x20 return tool.handler(request.params.arguments);\n\
             });\n",
        ),
        (
            "tools/docs.js",
            "import { z } from 'zod';\n\
             export const inputSchema = { query: z.string().describe('What to look up') };\n\
             export const metadata = { name: 'search_docs', description: 'Searches the docs' };\n\
             export async function handler({ query }) { return { content: [] }; }\n",
        ),
        (
            "tools/index-servers.js",
            "import { z } from 'zod';\n\
             export const inputSchema = { port: z.number().optional() };\n\
             export const metadata = { name: 'index_servers', description: 'Lists running servers' };\n\
             export async function handler({ port }) { return { content: [] }; }\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["index_servers", "search_docs"]);
    assert_eq!(params(tool(&inventory, "search_docs")), ["query"]);
    let docs = tool(&inventory, "search_docs");
    assert_eq!(docs.description.as_deref(), Some("Searches the docs"));
}

/// `const tool = (name, title, description, shape, annotations, cb) => server.registerTool(name,
/// { title, description, inputSchema: shape, annotations }, wrapped(cb))`: a function of the
/// file that registers whatever its caller names. Each call writing a name is a tool, its
/// description, shape and handler taken from the slots the function passes on.
#[test]
fn a_local_function_registering_the_tool_its_caller_names_registers_each_call() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "phone", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n\
             import { z } from 'zod';\n\
             export function createServer() {\n\
             \x20 const server = new McpServer({ name: 'phone', version: '1' });\n\
             \x20 const tool = (name, title, description, paramsSchema, annotations, cb) => {\n\
             \x20   server.registerTool(name, { title, description, inputSchema: paramsSchema, annotations },\n\
             \x20     async (args) => ({ content: [{ type: 'text', text: await cb(args) }] }));\n\
             \x20 };\n\
             \x20 tool('phone_list_apps', 'List Apps', 'Lists the installed apps', {\n\
             \x20   device: z.string().describe('The device id')\n\
             \x20 }, { readOnlyHint: true }, async ({ device }) => `apps of ${device}`);\n\
             \x20 tool('phone_press_button', 'Press', 'Presses a ' + 'button', {\n\
             \x20   device: z.string(), button: z.enum(['HOME', 'BACK'])\n\
             \x20 }, {}, async ({ button }) => `pressed ${button}`);\n\
             \x20 return server;\n\
             }\n\
             createServer();\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["phone_list_apps", "phone_press_button"]);
    let apps = tool(&inventory, "phone_list_apps");
    assert_eq!(
        apps.description.as_deref(),
        Some("Lists the installed apps")
    );
    assert_eq!(params(apps), ["device"]);
    assert!(apps.handler.is_some());
    assert_eq!(
        params(tool(&inventory, "phone_press_button")),
        ["device", "button"]
    );
}

/// `@tool("notes_get", annotations=...)` from the package's own registry, a decorator that only
/// stores `ToolDefinition(name, options)` on the function; the server registers the marked
/// functions in a loop (`server.tool(name, **options)(function)`). Each marked function is a
/// tool named by its decorator; the loop's variable is none.
#[test]
fn python_functions_marked_with_a_tool_definition_and_registered_in_a_loop_are_tools() {
    let dir = common::package_of(&[
        (
            "pyproject.toml",
            "[project]\nname = \"notes\"\nversion = \"1.0\"\n[project.scripts]\nnotes = \"notes.server:main\"\n",
        ),
        (
            "notes/registry.py",
            "from dataclasses import dataclass\n\n\
             @dataclass(frozen=True)\n\
             class ToolDefinition:\n    name: str\n    options: dict\n\n\
             _ATTR = \"__notes_tool__\"\n\n\
             def tool(name, **options):\n\
             \x20   def decorate(function):\n\
             \x20       setattr(function, _ATTR, ToolDefinition(name, options))\n\
             \x20       return function\n\
             \x20   return decorate\n\n\
             def register_tools(server, modules):\n\
             \x20   found = {}\n\
             \x20   for module in modules:\n\
             \x20       for function in vars(module).values():\n\
             \x20           definition = getattr(function, _ATTR, None)\n\
             \x20           if definition is not None:\n\
             \x20               found[definition.name] = (function, definition)\n\
             \x20   for name, (function, definition) in sorted(found.items()):\n\
             \x20       server.tool(name, **definition.options)(function)\n",
        ),
        (
            "notes/tools.py",
            "from notes.registry import tool\n\n\
             @tool(\"notes_get\", title=\"Get a note\")\n\
             async def get(title: str) -> str:\n\
             \x20   \"\"\"Get the text of one note.\"\"\"\n\
             \x20   return title\n\n\
             @tool(\"notes_count\")\n\
             async def count(prefix: str = \"\", limit: int = 10) -> str:\n\
             \x20   \"\"\"Count the notes whose titles start with a prefix.\"\"\"\n\
             \x20   return str(limit)\n",
        ),
        (
            "notes/server.py",
            "from mcp.server.fastmcp import FastMCP\n\
             from notes import tools\n\
             from notes.registry import register_tools\n\n\
             mcp = FastMCP(\"notes\")\n\
             register_tools(mcp, (tools,))\n\n\
             def main():\n    mcp.run()\n",
        ),
        ("notes/__init__.py", ""),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["notes_count", "notes_get"]);
    let count = tool(&inventory, "notes_count");
    assert_eq!(params(count), ["prefix", "limit"]);
    assert_eq!(
        count.description.as_deref(),
        Some("Count the notes whose titles start with a prefix.")
    );
}
