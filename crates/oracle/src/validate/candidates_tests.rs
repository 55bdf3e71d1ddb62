use super::*;

fn ctx<'a>(known: &'a Known, folders: &'a [String]) -> Context<'a> {
    Context { folders, known }
}

#[test]
fn an_id_a_creating_tool_returned_is_tried_where_a_parameter_ends_with_its_key() {
    let mut known = Known::default();
    known.learn(
        "create_note",
        &json!({}),
        &Map::new(),
        &[r#"{"id": "note-7", "title": "t"}"#.into()],
    );
    let schema = json!({"type": "object", "properties": {"noteId": {"type": "string"}}, "required": ["noteId"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("get_note", &schema, &plain, &ctx(&known, &[]));
    assert_eq!(tried[0]["noteId"], "note-7");
}

#[test]
fn a_text_answer_gives_its_keyed_values() {
    let mut known = Known::default();
    known.learn(
        "start",
        &json!({}),
        &Map::new(),
        &["Started.\nSession ID: s-42\n".into()],
    );
    assert_eq!(known.for_param("sessionId"), [&json!("s-42")]);
}

#[test]
fn a_path_points_inside_the_allowed_folder_at_a_file_a_writer_made() {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]});
    let folders = [TMP.to_string()];
    let mut known = Known::default();
    let plain = super::super::arguments_for(&schema);
    let write = candidates("write_text", &schema, &plain, &ctx(&known, &folders));
    assert_eq!(write[0]["path"], "{tmp}/mcpevol-write_text.txt");
    known.learn("write_text", &schema, &write[0], &["ok".into()]);
    let read = candidates("read_text", &schema, &plain, &ctx(&known, &folders));
    assert_eq!(read[0]["path"], "{tmp}/mcpevol-write_text.txt");
    assert!(read.iter().any(|c| c["path"] == "{tmp}"));
}

#[test]
fn other_enum_members_dates_and_optional_parameters_are_tried() {
    let schema = json!({"type": "object", "properties": {
        "unit": {"type": "string", "enum": ["k", "c"]},
        "day": {"type": "string", "description": "a date in YYYY-MM-DD format"},
        "url": {"type": "string"}
    }, "required": ["unit", "day"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("convert", &schema, &plain, &ctx(&Known::default(), &[]));
    assert!(tried.iter().any(|c| c["unit"] == "c"));
    assert!(tried.iter().any(|c| c["day"] == "2024-01-15"));
    assert!(tried.iter().any(|c| c.contains_key("url")));
    assert!(!tried.contains(&plain));
}

#[test]
fn strings_of_a_kind_are_tried_with_a_value_of_that_kind() {
    let schema = json!({"type": "object", "properties": {
        "query": {"type": "string", "description": "The SQL query to run"},
        "expression": {"type": "string"},
        "timezone": {"type": "string"},
        "note": {"type": "string", "description": "Any text"}
    }, "required": ["query", "expression", "timezone", "note"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("run", &schema, &plain, &ctx(&Known::default(), &[]));
    assert!(tried.iter().any(|c| c["query"] == "SELECT 1"), "{tried:?}");
    assert!(tried.iter().any(|c| c["expression"] == "1 + 1"));
    assert!(tried.iter().any(|c| c["timezone"] == "UTC"));
    // A string of no known kind keeps its plain value.
    assert!(tried.iter().all(|c| c["note"] == plain["note"]));
}

#[test]
fn a_quick_call_sets_every_number_small() {
    let schema = json!({"type": "object", "properties": {"duration": {"type": "number", "default": 10}, "steps": {"type": "integer", "minimum": 2}}});
    let quick = quick(&schema, &Map::new()).unwrap();
    assert_eq!(Value::Object(quick), json!({"duration": 1, "steps": 2}));
}

#[test]
fn a_file_parameter_is_tried_with_a_sample_of_the_kind_its_tool_reads() {
    let schema = json!({"type": "object", "properties": {
        "filePaths": {"type": "array", "items": {"type": "string"}, "description": "Files to lint"}
    }, "required": ["filePaths"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("lint-files", &schema, &plain, &ctx(&Known::default(), &[]));
    let first_sample = tried
        .iter()
        .find_map(|c| {
            c["filePaths"][0]
                .as_str()
                .filter(|p| p.contains("/samples/"))
        })
        .unwrap();
    assert_eq!(first_sample, "{tmp}/samples/sample.js");
    let schema = json!({"type": "object", "properties": {
        "path": {"type": "string", "description": "The PDF to read"}
    }, "required": ["path"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("read_pdf", &schema, &plain, &ctx(&Known::default(), &[]));
    assert!(
        tried
            .iter()
            .any(|c| c["path"] == "{tmp}/samples/sample.pdf"),
        "{tried:?}"
    );
}

#[test]
fn a_file_path_inside_an_array_of_objects_is_tried_with_a_sample() {
    let schema = json!({"type": "object", "properties": {
        "sources": {"type": "array", "items": {"type": "object", "properties": {
            "path": {"type": "string", "description": "Path to the local PDF file"},
            "url": {"type": "string"}
        }}}
    }, "required": ["sources"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("read_pdf", &schema, &plain, &ctx(&Known::default(), &[]));
    assert!(
        tried
            .iter()
            .any(|c| c["sources"] == json!([{"path": "{tmp}/samples/sample.pdf"}])),
        "{tried:?}"
    );
}

#[test]
fn a_web_address_is_tried_as_the_sample_page_on_this_machine() {
    let schema = json!({"type": "object", "properties": {
        "pageUrl": {"type": "string"}, "selector": {"type": "string"}
    }, "required": ["pageUrl", "selector"]});
    let plain = super::super::arguments_for(&schema);
    let tried = candidates("open_page", &schema, &plain, &ctx(&Known::default(), &[]));
    assert_eq!(tried[0]["pageUrl"], "file://{tmp}/samples/sample.html");
    assert_eq!(
        tried[0]["selector"], plain["selector"],
        "only the address moved"
    );
    let by_format = json!({"type": "string", "format": "uri"});
    assert!(url_like("target", &by_format));
    assert!(!url_like("selector", &json!({"type": "string"})));
    assert!(!url_like(
        "linkType",
        &json!({"type": "string", "enum": ["a", "b"]})
    ));
    // The page's field for a selector; a script every JavaScript (and Python) engine runs.
    let text = json!({"type": "string"});
    let kind = |name| super::super::kinds::formatted(name, &text);
    assert_eq!(kind("selector").as_deref(), Some("input"));
    assert_eq!(kind("script").as_deref(), Some("1 + 1"));
}
