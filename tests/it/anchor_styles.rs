//! Anchoring registration styles met on real servers, each in a small package written here.

use crate::common;
use crate::common::{anchored_tool as tool, tool_names as names};

use mcpevol::anchor::anchor;
use mcpevol::inventory::Tool;

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

/// Definitions passed through a parser (`ToolSchema.parse({ name, ... })`) in one module, and
/// a switch in another that routes on `tools.Tool.name` through `import * as tools`: each
/// case is the tool's handler. Unread, no tool had a handler, so no new tool could be written
/// beside any of them.
#[test]
fn a_switch_on_the_name_of_a_parsed_definition_is_the_tools_handler() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "conv", "version": "1.0.0", "type": "module", "main": "server.js" }"#,
        ),
        (
            "tools.js",
            "import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';\n\
             export const PdfTool = ToolSchema.parse({\n\
             \x20 name: 'pdf-to-text',\n\
             \x20 description: 'Convert a PDF file to text',\n\
             \x20 inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },\n\
             });\n\
             export const PageTool = ToolSchema.parse({\n\
             \x20 name: 'page-to-text',\n\
             \x20 description: 'Convert a web page to text',\n\
             \x20 inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },\n\
             });\n",
        ),
        (
            "server.js",
            "import { Server } from '@modelcontextprotocol/sdk/server/index.js';\n\
             import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';\n\
             import * as tools from './tools.js';\n\
             const server = new Server({ name: 'conv', version: '1' }, { capabilities: { tools: {} } });\n\
             server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: Object.values(tools) }));\n\
             server.setRequestHandler(CallToolRequestSchema, async (request) => {\n\
             \x20 const { name, arguments: args } = request.params;\n\
             \x20 switch (name) {\n\
             \x20   case tools.PdfTool.name:\n\
             \x20     return { content: [{ type: 'text', text: read(args.path) }] };\n\
             \x20   case tools.PageTool.name:\n\
             \x20     return { content: [{ type: 'text', text: fetchPage(args.url) }] };\n\
             \x20   default:\n\
             \x20     throw new Error('Tool not found');\n\
             \x20 }\n\
             });\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["page-to-text", "pdf-to-text"]);
    for (name, line) in [("pdf-to-text", 9), ("page-to-text", 11)] {
        let t = tool(&inventory, name);
        let handler = t.handler.as_ref();
        let handler = handler.unwrap_or_else(|| panic!("`{name}` has no handler"));
        assert_eq!(
            (handler.file.as_str(), handler.start_line),
            ("server.js", line)
        );
        assert_eq!(
            t.sites.routes.len(),
            1,
            "`{name}` is routed by its one case"
        );
    }
}

/// A factory the server declares builds each definition from its arguments
/// (`createToolSchema(Schema, "list_incidents", "Get incidents")` returning `{ name,
/// description, inputSchema }`), and a map of handlers routes by name. Each call that writes a
/// name is a tool with the schema it was given; a call that writes none (a computed name) is
/// not. Unread, the server anchored no tool at all.
#[test]
fn definitions_built_by_a_factory_of_the_server_are_tools_with_the_schema_they_are_given() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "dd", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "import { Server } from '@modelcontextprotocol/sdk/server/index.js';\n\
             import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';\n\
             import { z } from 'zod';\n\
             import zodToJsonSchema from 'zod-to-json-schema';\n\
             function createToolSchema(schema, name, description) {\n\
             \x20 return { name, description, inputSchema: zodToJsonSchema(schema) };\n\
             }\n\
             var ListZod = z.object({ pageSize: z.number().max(100).default(10), query: z.string().optional() });\n\
             var GetZod = z.object({ incidentId: z.string() });\n\
             var TOOLS = [\n\
             \x20 createToolSchema(ListZod, 'list_incidents', 'Get incidents'),\n\
             \x20 createToolSchema(GetZod, 'get_incident', 'Get one incident'),\n\
             \x20 createToolSchema(GetZod, process.env.EXTRA_NAME, 'Computed'),\n\
             ];\n\
             var HANDLERS = {\n\
             \x20 list_incidents: async (request) => ({ content: [{ type: 'text', text: 'all' }] }),\n\
             \x20 get_incident: async (request) => ({ content: [{ type: 'text', text: 'one' }] }),\n\
             };\n\
             const server = new Server({ name: 'dd', version: '1' }, { capabilities: { tools: {} } });\n\
             server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));\n\
             server.setRequestHandler(CallToolRequestSchema, async (request) => HANDLERS[request.params.name](request));\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["get_incident", "list_incidents"]);
    let list = tool(&inventory, "list_incidents");
    assert_eq!(params(list), [("pageSize", false), ("query", false)]);
    assert_eq!(list.description.as_deref(), Some("Get incidents"));
    assert_eq!(list.handler.as_ref().map(|h| h.start_line), Some(16));
    assert_eq!(
        params(tool(&inventory, "get_incident")),
        [("incidentId", true)]
    );
}

/// A resource class (`uri`, `name`, `description`, `mimeType`, a `read` method) beside tool
/// classes of the same form: only the tool classes, which take an input schema, are tools.
/// Read as tools, six resources of one server stood among its tools ("Mapbox Categories").
#[test]
fn a_resource_class_beside_tool_classes_is_not_a_tool() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "maps", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "import { z } from 'zod';\n\
             export class DistanceTool extends BaseTool {\n\
             \x20 name = 'distance_tool';\n\
             \x20 description = 'Distance between two points';\n\
             \x20 inputSchema = z.object({ from: z.string(), to: z.string() });\n\
             \x20 async run(input) { return { content: [{ type: 'text', text: '1 km' }] }; }\n\
             }\n\
             export class VersionResource extends BaseResource {\n\
             \x20 uri = 'maps://version';\n\
             \x20 name = 'Maps Server Version';\n\
             \x20 description = 'Version information for the server';\n\
             \x20 mimeType = 'application/json';\n\
             \x20 async read() { return { contents: [] }; }\n\
             }\n\
             const tools = [new DistanceTool()];\n\
             const resources = [new VersionResource()];\n\
             for (const t of tools) t.installTo(server);\n\
             for (const r of resources) r.installTo(server);\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["distance_tool"]);
}

/// A tool class hands its schemas to its base class (`constructor() { super({ inputSchema:
/// DistanceInputSchema }) }`), the schema declared in a module of its own: the tool has that
/// schema's parameters. Read from the class's fields alone, it had none, and no change to a
/// parameter could be drafted on any tool of the server.
#[test]
fn a_schema_a_tool_class_hands_its_base_class_is_the_tools_schema() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "maps", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "distance.schema.js",
            "import z from 'zod';\n\
             export const DistanceInputSchema = z.object({\n\
             \x20 from: z.string().describe('Start'),\n\
             \x20 to: z.string().describe('End'),\n\
             \x20 units: z.enum(['km', 'mi']).optional().describe('Unit'),\n\
             });\n",
        ),
        (
            "index.js",
            "import { DistanceInputSchema } from './distance.schema.js';\n\
             export class DistanceTool extends BaseTool {\n\
             \x20 name = 'distance_tool';\n\
             \x20 description = 'Distance between two points';\n\
             \x20 constructor() {\n\
             \x20   super({ inputSchema: DistanceInputSchema });\n\
             \x20 }\n\
             \x20 async run(input) { return { content: [{ type: 'text', text: '1 km' }] }; }\n\
             }\n\
             const tools = [new DistanceTool()];\n\
             for (const t of tools) t.installTo(server);\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(
        params(tool(&inventory, "distance_tool")),
        [("from", true), ("to", true), ("units", false)]
    );
}

/// Definitions of the form Speakeasy generates: `{ name, description, args, tool }` held in a
/// variable and registered by a helper (`tool(tool$listFlags)`). Each is a tool with its
/// handler; a prompt object beside them (`arguments`) is not.
#[test]
fn generated_definitions_with_args_and_a_tool_function_are_tools() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "flags", "version": "1.0.0", "main": "server.js" }"#,
        ),
        (
            "server.js",
            "var args1 = { request: z.object({ projectKey: z.string() }) };\n\
             var tool$listFlags = {\n\
             \x20 name: 'list-feature-flags',\n\
             \x20 description: 'Lists the flags of a project',\n\
             \x20 scopes: ['read'],\n\
             \x20 args: args1,\n\
             \x20 tool: async (client, args, ctx) => ({ content: [{ type: 'text', text: 'none' }] }),\n\
             };\n\
             var prompt$explain = { name: 'explain', description: 'Explain a flag', arguments: [] };\n\
             function createMCPServer(server) {\n\
             \x20 const tool = createRegisterTool(server);\n\
             \x20 tool(tool$listFlags);\n\
             \x20 prompt(prompt$explain);\n\
             }\n\
             createMCPServer(new McpServer({ name: 'flags', version: '1' }));\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["list-feature-flags"]);
    let handler = tool(&inventory, "list-feature-flags").handler.as_ref();
    assert_eq!(handler.map(|h| h.start_line), Some(7));
}

/// The same definitions as esbuild bundles modules it initialises lazily: each constant is a
/// `var` declared bare and assigned in its module's init (`args2 = { request: X }`). Each
/// tool takes the parameters of its own assignment, with a type where the named schema is
/// zod's, and the held `args` object is where a new parameter would go.
#[test]
fn definitions_whose_args_are_assigned_in_a_lazy_module_init_take_their_own_parameters() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "flags", "version": "1.0.0", "main": "server.js" }"#,
        ),
        (
            "server.js",
            "var ListFlagsRequest$inboundSchema, GetFlagRequest$inboundSchema;\n\
             var init_models = __esm(() => {\n\
             \x20 ListFlagsRequest$inboundSchema = z.object({ projectKey: z.string() });\n\
             \x20 GetFlagRequest$inboundSchema = z.object({ flagKey: z.string() });\n\
             });\n\
             var args, tool$listFlags;\n\
             var init_listFlags = __esm(() => {\n\
             \x20 args = { request: ListFlagsRequest$inboundSchema, limit: z.number().optional() };\n\
             \x20 tool$listFlags = { name: 'list-feature-flags', description: 'Lists the flags', args,\n\
             \x20   tool: async (client, args2, ctx) => ({ content: [] }) };\n\
             });\n\
             var args2, tool$getFlag;\n\
             var init_getFlag = __esm(() => {\n\
             \x20 args2 = { request: GetFlagRequest$inboundSchema };\n\
             \x20 tool$getFlag = { name: 'get-feature-flag', description: 'Gets one flag', args: args2,\n\
             \x20   tool: async (client, args3, ctx) => ({ content: [] }) };\n\
             });\n\
             function createMCPServer(server) {\n\
             \x20 const tool = createRegisterTool(server);\n\
             \x20 tool(tool$listFlags);\n\
             \x20 tool(tool$getFlag);\n\
             }\n\
             createMCPServer(new McpServer({ name: 'flags', version: '1' }));\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(
        names(&inventory),
        ["get-feature-flag", "list-feature-flags"]
    );
    assert_eq!(
        params(tool(&inventory, "list-feature-flags")),
        [("request", true), ("limit", false)]
    );
    assert_eq!(
        params(tool(&inventory, "get-feature-flag")),
        [("request", true)]
    );
}

/// A minified bundle imports zod under a letter (`import Q, { z as s } from "zod"`) and
/// holds each tool's shape in a constant of two letters: the shape is told by its chains on
/// `s`, and a new parameter is spelled the same way.
#[test]
fn shapes_on_zod_imported_under_another_name_are_read() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "tasks", "version": "1.0.0", "type": "module", "main": "server.js" }"#,
        ),
        (
            "server.js",
            "import { McpServer as os } from '@modelcontextprotocol/sdk/server/mcp.js';\n\
             import Q, { ZodError as ls, z as s } from \"zod\";\n\
             const Hr = s.object({ content: s.string().min(1) }), Wr = {\n\
             \x20 comments: s.array(Hr).min(1).describe('The comments to add.'),\n\
             \x20 dryRun: s.boolean().optional()\n\
             }, zr = { name: 'add-comments', description: 'Add comments to tasks', parameters: Wr,\n\
             \x20 execute: async (e) => ({ content: [] }) };\n\
             const n = new os({ name: 'tasks', version: '1' });\n\
             n.registerTool(zr.name, { description: zr.description, inputSchema: zr.parameters }, zr.execute);\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["add-comments"]);
    let add = tool(&inventory, "add-comments");
    assert_eq!(params(add), [("comments", true), ("dryRun", false)]);
    let zod = add.sites.schema.as_ref().and_then(|s| s.zod.as_deref());
    assert_eq!(zod, Some("s"));
}

/// Tool modules that export their name as `method` beside `description`, `parameters` and
/// `handler`, loaded by the entry from a folder whose paths it computes
/// (`import(pathToFileURL(path).href)`): every module is a tool, since which files load is
/// only known at run time.
#[test]
fn modules_named_by_method_and_loaded_from_computed_paths_are_tools() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "api", "version": "1.0.0", "type": "module", "bin": { "api": "index.js" } }"#,
        ),
        (
            "index.js",
            "import { readdirSync } from 'node:fs';\n\
             import { pathToFileURL } from 'node:url';\n\
             const tools = [];\n\
             for (const file of readdirSync(dir)) {\n\
             \x20 const toolModule = await import(pathToFileURL(file).href);\n\
             \x20 if (toolModule.method && toolModule.handler) tools.push(toolModule);\n\
             }\n\
             for (const tool of tools) server.registerTool(tool.method, { description: tool.description, inputSchema: tool.parameters.shape }, tool.handler);\n",
        ),
        (
            "tools/getWorkspace.js",
            "import { z } from 'zod';\n\
             export const method = 'getWorkspace';\n\
             export const description = 'Gets a workspace';\n\
             export const parameters = z.object({ workspaceId: z.string() });\n\
             export async function handler(args) { return { content: [] }; }\n",
        ),
        (
            "tools/getTeams.js",
            "import { z } from 'zod';\n\
             export const method = 'getTeams';\n\
             export const description = 'Lists the teams';\n\
             export const parameters = z.object({ limit: z.number().optional() });\n\
             export async function handler(args) { return { content: [] }; }\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    assert_eq!(names(&inventory), ["getTeams", "getWorkspace"]);
    assert_eq!(
        params(tool(&inventory, "getWorkspace")),
        [("workspaceId", true)]
    );
}

/// A description held in a constant written as an indented template and trimmed
/// (`` export const description = `\n    Searches the news ...\n`.trim() ``): the tool's
/// description is the trimmed text, and it stays rewritable. Read as a computed value, no
/// description change could be drafted on any tool of the server.
#[test]
fn a_trimmed_template_description_is_read_as_its_trimmed_text() {
    let dir = common::package_of(&[
        (
            "package.json",
            r#"{ "name": "news", "version": "1.0.0", "type": "module", "main": "index.js" }"#,
        ),
        (
            "index.js",
            "import { z } from 'zod';\n\
             export const name = 'news_search';\n\
             export const description = `\n\
             \x20   Searches the news for a query.\n\
             \x20   Returns titles and links.\n\
             `.trim();\n\
             const params = z.object({ query: z.string() });\n\
             server.registerTool(name, { description: description, inputSchema: params.shape }, async (a) => a);\n",
        ),
    ]);
    let inventory = anchor(dir.path()).unwrap();
    let t = tool(&inventory, "news_search");
    assert_eq!(
        t.description.as_deref(),
        Some("Searches the news for a query.\n    Returns titles and links.")
    );
}
