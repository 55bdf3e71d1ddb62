//! Anchoring the hand-written Python fixture servers (`fixtures/python/`), one per registration
//! style: names against the live server, spans, the sites the rules edit, snapshots.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use mcpevol::anchor::anchor;
use mcpevol::inventory::{Inventory, PyParams, Span, Style};
use mcpevol::server::{DEFAULT_TIMEOUT, LaunchConfig};
use mcpevol::survey::{Comparison, survey_package};

fn anchored(dir: &Path) -> Inventory {
    let rel = common::relative_to_repo(dir);
    anchor(&rel).unwrap_or_else(|e| panic!("{}: {e}", rel.display()))
}

fn snippet(span: &Span, root: &Path) -> String {
    let text = std::fs::read_to_string(root.join(&span.file)).unwrap();
    text[span.bytes.0..span.bytes.1].to_string()
}

fn fixture(name: &str) -> std::path::PathBuf {
    common::repo().join("fixtures/python").join(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_python_fixture_anchors_exactly_the_tools_its_running_server_lists() {
    let fixtures = common::python_fixtures();
    let runs = fixtures.iter().map(|dir| async move {
        let config = LaunchConfig::for_package(dir).unwrap();
        (
            common::name_of(dir),
            survey_package(dir, &config, DEFAULT_TIMEOUT).await,
        )
    });
    let mut failures = Vec::new();
    for (name, result) in futures::future::join_all(runs).await {
        match result {
            Ok(listing) => {
                let c = Comparison::new(
                    listing.anchored.iter().map(String::as_str),
                    listing.live.iter().map(String::as_str),
                );
                println!("{name:<20} {:>3} anchored {:>3} live", c.anchored, c.live);
                assert!(c.live > 0, "{name} listed no tools");
                if !c.is_exact() {
                    failures.push(format!(
                        "{name}: missing {:?}, extra {:?}",
                        c.missing, c.extra
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn python_fixtures_cover_register_switch_if_and_cross_file() {
    let mut styles = BTreeSet::new();
    for dir in common::python_fixtures() {
        styles.extend(anchored(&dir).tools.iter().map(|t| t.style));
    }
    for style in [Style::Register, Style::Switch, Style::If, Style::CrossFile] {
        assert!(
            styles.contains(&style),
            "no Python fixture anchors as {style:?}: {styles:?}"
        );
    }
}

/// A handler span is the code that runs for the tool: a `def` (decorators, `add_tool`), a
/// `case` clause (match), the block of an `if`/`elif`, a function in another module.
#[test]
fn python_handler_spans_hold_the_code_that_answers() {
    for dir in common::python_fixtures() {
        for tool in &anchored(&dir).tools {
            let handler = tool
                .handler
                .as_ref()
                .expect("every fixture tool has a handler");
            let code = snippet(handler, &dir);
            let what = format!(
                "{}: {} ({}:{})\n{code}",
                common::name_of(&dir),
                tool.name,
                handler.file,
                handler.start_line
            );
            assert!(
                code.contains("return") || code.contains("text ="),
                "answers nothing: {what}"
            );
            match tool.style {
                Style::Switch => assert!(code.starts_with("case "), "not a case clause: {what}"),
                Style::If => assert!(
                    !code.starts_with("if ") && !code.starts_with("def "),
                    "not a block: {what}"
                ),
                Style::Register | Style::CrossFile => {
                    assert!(
                        code.starts_with("def ") || code.starts_with("async def "),
                        "not a function: {what}"
                    )
                }
                other => panic!("unexpected style {other:?}: {what}"),
            }
        }
    }
}

#[test]
fn decorator_tools_take_names_descriptions_and_parameters_from_the_function() {
    let dir = fixture("fastmcp-decorators");
    let inventory = anchored(&dir);
    let forecast = inventory.tool("get_forecast").unwrap();
    assert_eq!(
        forecast.description.as_deref(),
        Some("Get the forecast for a city.")
    );
    let params: Vec<(&str, Option<&str>, bool)> = forecast
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.as_deref(), p.required))
        .collect();
    assert_eq!(
        params,
        [
            ("city", Some("string"), true),
            ("days", Some("integer"), false)
        ]
    );
    assert_eq!(
        forecast.params[0].description.as_deref(),
        Some("City name, e.g. paris")
    );
    let schema = forecast.sites.schema.as_ref().unwrap();
    assert_eq!(schema.python, Some(PyParams::Signature));
    let city = &schema.params[0];
    assert_eq!(
        snippet(&city.description.as_ref().unwrap().span, &dir),
        "\"City name, e.g. paris\""
    );
    assert_eq!(
        snippet(&forecast.sites.description.as_ref().unwrap().span, &dir),
        "\"\"\"Get the forecast for a city.\"\"\""
    );
    assert_eq!(
        snippet(forecast.sites.registration.as_ref().unwrap(), &dir),
        "@mcp.tool()"
    );
    // The context is injected by FastMCP, not a parameter; the name comes from `name=`.
    let shout = inventory.tool("shout").unwrap();
    assert_eq!(
        shout
            .params
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
        ["text"]
    );
    assert_eq!(
        snippet(shout.sites.name.as_ref().unwrap(), &dir),
        "\"shout\""
    );
    assert_eq!(
        snippet(&shout.sites.description.as_ref().unwrap().span, &dir),
        "\"Upper-case a text\""
    );
    // A multi-line docstring reads as inspect.cleandoc gives it.
    let area = inventory.tool("rectangle_area").unwrap();
    assert_eq!(
        area.description.as_deref(),
        Some("Area of a rectangle.\n\nMultiplies width by height.")
    );
    assert!(
        inventory.tool("packing_advice").is_none(),
        "a prompt is not a tool"
    );
}

#[test]
fn low_level_tools_get_their_enum_names_json_and_model_schemas_and_case_routes() {
    let dir = fixture("lowlevel-match");
    let inventory = anchored(&dir);
    let echo = inventory.tool("echo").unwrap();
    assert_eq!(
        snippet(echo.sites.name.as_ref().unwrap(), &dir),
        "Tools.ECHO.value"
    );
    let schema = echo.sites.schema.as_ref().unwrap();
    assert_eq!(schema.python, Some(PyParams::Dict));
    assert!(schema.json);
    assert_eq!(
        echo.params
            .iter()
            .map(|p| (p.name.as_str(), p.required))
            .collect::<Vec<_>>(),
        [("message", true), ("prefix", false)]
    );
    assert_eq!(echo.sites.routes.len(), 1);
    assert_eq!(
        snippet(&echo.sites.routes[0].label, &dir),
        "Tools.ECHO.value"
    );
    assert!(snippet(echo.sites.registration.as_ref().unwrap(), &dir).starts_with("types.Tool("));
    // `inputSchema=Add.model_json_schema()` reads the model's fields.
    let add = inventory.tool("add").unwrap();
    assert_eq!(
        add.sites.schema.as_ref().unwrap().python,
        Some(PyParams::Model)
    );
    assert_eq!(
        add.params
            .iter()
            .map(|p| p.description.as_deref())
            .collect::<Vec<_>>(),
        [Some("First addend"), Some("Second addend")]
    );
}

#[test]
fn an_if_chain_routes_names_from_constants_and_either_side_and_ignores_decoys() {
    let dir = fixture("lowlevel-if");
    let inventory = anchored(&dir);
    assert_eq!(
        inventory.names(),
        ["base64_decode", "base64_encode", "convert_temperature"]
    );
    for tool in &inventory.tools {
        assert_eq!(tool.style, Style::If, "{}", tool.name);
        assert_eq!(tool.sites.routes.len(), 1, "{}", tool.name);
    }
    let encode = inventory.tool("base64_encode").unwrap();
    assert_eq!(
        snippet(&encode.sites.routes[0].site, &dir),
        "name == ENCODE"
    );
    let decode = inventory.tool("base64_decode").unwrap();
    assert_eq!(
        snippet(&decode.sites.routes[0].label, &dir),
        "\"base64_decode\""
    );
}

#[test]
fn tools_held_in_names_in_one_module_are_routed_by_a_handler_table_in_another() {
    let dir = fixture("cross-module");
    let inventory = anchored(&dir);
    for tool in &inventory.tools {
        assert_eq!(tool.style, Style::CrossFile, "{}", tool.name);
        assert_eq!(
            tool.handler.as_ref().unwrap().file,
            "notes/tools/handlers.py"
        );
        assert!(tool.sites.holder.is_some(), "{}", tool.name);
    }
    let read = inventory.tool("read-note").unwrap();
    assert_eq!(
        read.sites.routes[0].kind,
        mcpevol::inventory::RouteKind::MapEntry
    );
    assert_eq!(
        snippet(read.sites.registration.as_ref().unwrap(), &dir),
        "READ_NOTE"
    );
}

#[test]
fn add_tool_calls_name_tools_by_keyword_or_by_function() {
    let dir = fixture("add-tool");
    let inventory = anchored(&dir);
    assert_eq!(
        inventory.names(),
        ["lengths", "make_slug", "reverse_text", "vowel_count"]
    );
    let vowels = inventory.tool("vowel_count").unwrap();
    assert_eq!(
        vowels.description.as_deref(),
        Some("How many vowels a text holds")
    );
    assert!(
        snippet(vowels.sites.registration.as_ref().unwrap(), &dir)
            .starts_with("mcp.add_tool(count_vowels")
    );
    let slug = inventory.tool("make_slug").unwrap();
    assert_eq!(slug.handler.as_ref().unwrap().file, "helpers.py");
}

#[test]
fn anchor_json_of_every_python_fixture_matches_its_snapshot() {
    for dir in common::python_fixtures() {
        let inventory = anchored(&dir);
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_json_snapshot!(format!("anchor-py-{}", common::name_of(&dir)), inventory);
        });
    }
}

#[test]
fn decorators_of_the_servers_own_making_register_what_they_decorate_as_they_name_it() {
    let dir = fixture("helper-decorator");
    let inventory = anchored(&dir);
    // `register_tool("shout")` registers `shout` and `text_shout`; the registry's `reader` (in
    // another module, through `_register`) names each tool after its function; `@logged`
    // registers nothing.
    assert_eq!(
        inventory.names(),
        ["count_words", "reverse", "shout", "text_shout"]
    );
    let shout = inventory.tool("shout").unwrap();
    assert_eq!(
        snippet(shout.sites.name.as_ref().unwrap(), &dir),
        "\"shout\""
    );
    assert_eq!(shout.sites.helper.as_deref(), Some("register_tool"));
    assert!(inventory.tool("text_shout").unwrap().sites.name.is_none());
    let reverse = inventory.tool("reverse").unwrap();
    assert_eq!(reverse.style, Style::Register);
    assert!(reverse.sites.name.is_none());
    assert_eq!(reverse.sites.helper.as_deref(), Some("reader"));
    assert_eq!(
        reverse.description.as_deref(),
        Some("Reverse a text, as many times as asked.")
    );
    assert_eq!(
        snippet(reverse.sites.registration.as_ref().unwrap(), &dir),
        "@tools.reader(\"Reverse\")"
    );
    assert!(snippet(reverse.handler.as_ref().unwrap(), &dir).starts_with("def reverse("));
    let params: Vec<&str> = reverse.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["text", "times"]);
}

#[test]
fn handler_classes_are_named_by_their_class_attributes_and_routed_through_their_instances() {
    let dir = fixture("handler-class");
    let inventory = anchored(&dir);
    assert_eq!(inventory.names(), ["add", "echo"]);
    let echo = inventory.tool("echo").unwrap();
    assert_eq!(echo.style, Style::If);
    // The name and description are edited where the class states them.
    assert_eq!(snippet(echo.sites.name.as_ref().unwrap(), &dir), "\"echo\"");
    assert_eq!(
        echo.description.as_deref(),
        Some("Echo a message back, unchanged.")
    );
    assert_eq!(
        snippet(&echo.sites.routes[0].site, &dir),
        "name == echo_handler.name"
    );
    assert!(
        snippet(echo.handler.as_ref().unwrap(), &dir).contains("echo_handler.run_tool(arguments)")
    );
    // Registered where an instance of the class is listed.
    assert_eq!(
        snippet(echo.sites.registration.as_ref().unwrap(), &dir),
        "echo_handler.get_tool_description()"
    );
    let add = inventory.tool("add").unwrap();
    let params: Vec<&str> = add.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["a", "b"]);
}

#[test]
fn handler_classes_named_by_a_base_class_in_another_module_are_found() {
    let dir = fixture("handler-base");
    let inventory = anchored(&dir);
    // `super().__init__("upper_case")` and `super().__init__(TOOL_WORD_COUNT)`, with
    // `self.name = tool_name` in the base's `__init__` (handlers/base.py).
    assert_eq!(inventory.names(), ["upper_case", "word_count"]);
    let upper = inventory.tool("upper_case").unwrap();
    assert_eq!(
        snippet(upper.sites.name.as_ref().unwrap(), &dir),
        "\"upper_case\""
    );
    assert_eq!(upper.description.as_deref(), Some("Upper-case a text."));
    assert!(upper.sites.helper.is_none());
    let count = inventory.tool("word_count").unwrap();
    assert_eq!(
        snippet(count.sites.name.as_ref().unwrap(), &dir),
        "TOOL_WORD_COUNT"
    );
    let params: Vec<&str> = count.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["text"]);
}

#[test]
fn decorators_that_file_tools_in_a_dict_name_them_by_their_key() {
    // `_TOOL_REGISTRY[name] = (func, description)` in `register_tool`; the resources' dict
    // beside it holds no tools.
    let dir = fixture("registry-dict");
    let inventory = anchored(&dir);
    assert_eq!(inventory.names(), ["shout_text", "word_count"]);
    let count = inventory.tool("word_count").unwrap();
    assert_eq!(
        snippet(count.sites.name.as_ref().unwrap(), &dir),
        "\"word_count\""
    );
    assert_eq!(count.sites.helper.as_deref(), Some("register_tool"));
    assert_eq!(
        count.description.as_deref(),
        Some("Count the words of a text")
    );
}

#[test]
fn a_registry_given_the_model_of_a_tools_arguments_lists_the_models_fields() {
    // `@register_tool("count_words", params=CountParams, ...)` on
    // `def count_words(settings, params: CountParams)`: the server lists the model's fields.
    let dir = fixture("registry-models");
    let inventory = anchored(&dir);
    assert_eq!(inventory.names(), ["count_words", "shout_text"]);
    let count = inventory.tool("count_words").unwrap();
    let params: Vec<&str> = count.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["text", "unique"]);
    assert_eq!(
        count.params[1].description.as_deref(),
        Some("Count each word once")
    );
}

#[test]
fn methods_a_handler_registers_in_its_init_are_read_like_functions() {
    // `self.mcp.tool(name="count_words")(self.count)` and `mcp.add_tool(self.shout, ...)`:
    // the methods' signatures (without `self` and the `Context`) and docstrings.
    let dir = fixture("method-tools");
    let inventory = anchored(&dir);
    assert_eq!(inventory.names(), ["count_words", "shout_text"]);
    let count = inventory.tool("count_words").unwrap();
    let params: Vec<&str> = count.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["text"]);
    assert_eq!(
        count.params[0].description.as_deref(),
        Some("The text to count")
    );
    assert_eq!(
        count.description.as_deref(),
        Some("Count the words of a text.")
    );
    let shout = inventory.tool("shout_text").unwrap();
    let params: Vec<&str> = shout.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["text", "times"]);
}

/// Anchors a fixture whose `notes_tool` decorator names `shout` by its `name="shout_text"` and
/// `count_words` by the function, described by the decorator's `description=`.
fn named_by_argument_or_function(fixture_name: &str) -> Inventory {
    let dir = fixture(fixture_name);
    let inventory = anchored(&dir);
    assert_eq!(inventory.names(), ["count_words", "shout_text"]);
    let shout = inventory.tool("shout_text").unwrap();
    assert_eq!(
        snippet(shout.sites.name.as_ref().unwrap(), &dir),
        "\"shout_text\""
    );
    assert_eq!(shout.sites.helper.as_deref(), Some("notes_tool"));
    let count = inventory.tool("count_words").unwrap();
    assert!(count.sites.name.is_none());
    assert_eq!(
        count.description.as_deref(),
        Some("Count the words of a text")
    );
    inventory
}

#[test]
fn decorators_that_return_a_tool_definition_name_it_by_their_argument_or_function() {
    // `notes_tool = partial(make_tool, ...)`, whose inner decorator returns
    // `ToolDefinition(fn=fn, name=name, ...)`; a loop registers the definitions. The prompt
    // definition beside it is no tool.
    named_by_argument_or_function("definition-decorator");
}

#[test]
fn decorators_that_collect_tools_into_a_registry_name_them_by_their_argument_or_function() {
    // `notes_tool` appends `{"name": tool_name, ...}` where `tool_name = name if name is not
    // None else func.__name__`; `notes_resource` collects resources, which are no tools.
    let inventory = named_by_argument_or_function("registry-append");
    // The text its parameter's annotation carries.
    let count = inventory.tool("count_words").unwrap();
    assert_eq!(
        count.params[0].description.as_deref(),
        Some("The text to count")
    );
}
