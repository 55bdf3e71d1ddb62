//! Reading a model's replies: SEARCH/REPLACE blocks, the operator choice, generated tests.
//! Every malformed reply becomes an error in words that goes back to the model.

use serde::{Deserialize, Serialize};

use mcpevol_core::schema::{ChangeKind, SchemaChange};
use serde_json::Value;

use crate::hunks::Hunk;

const SEARCH: &str = "<<<<<<< SEARCH";
const DIVIDER: &str = "=======";
const REPLACE: &str = ">>>>>>> REPLACE";

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ReplyError {
    #[error(
        "the reply has no SEARCH/REPLACE block; answer with blocks of the form: path, then `{SEARCH}`, the exact lines, `{DIVIDER}`, the new lines, `{REPLACE}`"
    )]
    NoBlocks,
    #[error(
        "block {index} (line {line} of the reply) names no file: put the file's path on the line before `{SEARCH}`"
    )]
    NoFile { index: usize, line: usize },
    #[error(
        "block {index} (line {line} of the reply) is not closed: it needs `{DIVIDER}` and then `{REPLACE}`"
    )]
    Unclosed { index: usize, line: usize },
    #[error("the reply holds no JSON {what}: answer with one ```json fenced block")]
    NoJson { what: &'static str },
    #[error("the JSON in the reply is malformed: {0}")]
    BadJson(String),
}

/// Parses SEARCH/REPLACE blocks. The file path is the last non-empty line before each block
/// (code fences and their language tags are skipped).
pub fn parse_blocks(reply: &str) -> Result<Vec<Hunk>, ReplyError> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut hunks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != SEARCH {
            i += 1;
            continue;
        }
        let index = hunks.len() + 1;
        let file = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty() && !l.starts_with("```"))
            .map(|l| {
                l.trim_matches(|c| c == '`' || c == '*' || c == ':')
                    .trim()
                    .to_string()
            })
            .filter(|f| !f.is_empty() && !f.contains(' ') && f != REPLACE)
            .ok_or(ReplyError::NoFile { index, line: i + 1 })?;
        let divider = (i + 1..lines.len()).find(|&j| lines[j].trim_end() == DIVIDER);
        let end =
            divider.and_then(|d| (d + 1..lines.len()).find(|&j| lines[j].trim_end() == REPLACE));
        let (Some(d), Some(e)) = (divider, end) else {
            return Err(ReplyError::Unclosed { index, line: i + 1 });
        };
        let join = |from: usize, to: usize| {
            let mut text = lines[from..to].join("\n");
            if to > from {
                text.push('\n');
            }
            text
        };
        hunks.push(Hunk {
            file: file.trim_start_matches("./").to_string(),
            search: join(i + 1, d),
            replace: join(d + 1, e),
        });
        i = e + 1;
    }
    if hunks.is_empty() {
        Err(ReplyError::NoBlocks)
    } else {
        Ok(hunks)
    }
}

/// The model's choice of operator and targets.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Selection {
    pub operator: mcpevol_core::operators::OperatorId,
    pub targets: Vec<String>,
    #[serde(default)]
    pub rationale: String,
}

/// A test case the model wrote for a changed tool.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GeneratedTest {
    pub tool: String,
    #[serde(default)]
    pub arguments: serde_json::Map<String, Value>,
    pub expect: Expect,
    /// A substring the result text must contain, if any.
    #[serde(default)]
    pub contains: Option<String>,
}

impl GeneratedTest {
    /// Whether a generated call exercises the change: it calls a new tool or an old name, or a
    /// changed tool with a changed parameter set (or any call of it when no parameter changed).
    pub fn exercises(&self, changes: &[SchemaChange]) -> bool {
        let case = self;
        changes.iter().any(|c| {
            let named = c.tool == case.tool || c.renamed_to() == Some(case.tool.as_str());
            match (c.kind(), c.param()) {
                (ChangeKind::ToolAdded | ChangeKind::ToolRemoved | ChangeKind::ToolRenamed, _) => {
                    named
                }
                (_, Some(param))
                    if c.kind() != ChangeKind::ParamDescriptionChanged
                        && c.kind() != ChangeKind::ParamRemoved =>
                {
                    named && case.arguments.contains_key(param)
                }
                _ => named,
            }
        })
    }
}

/// How a model's test case expects its call to end.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    Success,
    Error,
}

impl std::fmt::Display for Expect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Expect::Success => "success",
            Expect::Error => "error",
        })
    }
}

/// The first ```json fenced block, else the first balanced JSON value in the text.
fn json_in(reply: &str, what: &'static str) -> Result<Value, ReplyError> {
    let fenced = reply
        .split("```")
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, b)| b)
        .find_map(|b| {
            let body = b.strip_prefix("json").unwrap_or(b);
            serde_json::from_str::<Value>(body.trim()).ok()
        });
    if let Some(v) = fenced {
        return Ok(v);
    }
    let start = reply.find(['{', '[']).ok_or(ReplyError::NoJson { what })?;
    let mut stream = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(ReplyError::BadJson(e.to_string())),
        None => Err(ReplyError::NoJson { what }),
    }
}

pub fn parse_selection(reply: &str) -> Result<Selection, ReplyError> {
    let value = json_in(reply, "object")?;
    serde_json::from_value(value).map_err(|e| ReplyError::BadJson(format!("{e}; expected {{\"operator\": \"O5\", \"targets\": [\"tool\"], \"rationale\": \"...\"}}")))
}

/// A model's plan of a release: its changes, in the order they are to be made.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReleasePlan {
    pub changes: Vec<Selection>,
}

pub fn parse_release_plan(reply: &str) -> Result<ReleasePlan, ReplyError> {
    let value = json_in(reply, "object")?;
    let plan: ReleasePlan = serde_json::from_value(value).map_err(|e| ReplyError::BadJson(format!("{e}; expected {{\"changes\": [{{\"operator\": \"O5\", \"targets\": [\"tool\"], \"rationale\": \"...\"}}]}}")))?;
    if plan.changes.is_empty() {
        return Err(ReplyError::BadJson(
            "the release has no changes; list at least one".into(),
        ));
    }
    Ok(plan)
}

/// The test cases of a reply: a JSON array of them, or the `tests` of an object that also
/// states `claims`.
pub fn parse_tests(reply: &str) -> Result<Vec<GeneratedTest>, ReplyError> {
    let mut value = json_in(reply, "array")?;
    if let Some(tests) = value.get_mut("tests") {
        value = tests.take();
    }
    serde_json::from_value(value).map_err(|e| {
        ReplyError::BadJson(format!(
            "{e}; expected [{{\"tool\": \"...\", \"arguments\": {{}}, \"expect\": \"success\" or \"error\"}}]"
        ))
    })
}

/// The effects a reply claims its change has (`claims` beside `tests`), in the form the rules
/// state theirs; none when the reply is a bare array of tests.
pub fn parse_claims(reply: &str) -> Result<Vec<mcpevol_oracle::validate::Effect>, ReplyError> {
    let value = json_in(reply, "object")?;
    match value.get("claims") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(claims) => serde_json::from_value(claims.clone()).map_err(|e| {
            ReplyError::BadJson(format!(
                "{e}; expected \"claims\": [{{\"kind\": \"variant\", \"tool\": \"new_tool\", \"source\": \"old_tool\", \"max_chars\": null}}, {{\"kind\": \"truncate-chars\" or \"truncate-lines\" or \"skip-lines\" or \"project\" or \"reformat\" or \"enforced\", \"tool\": \"...\", \"param\": \"...\"}}, {{\"kind\": \"successor\", \"tool\": \"removed_tool\", \"successor\": \"other_tool\"}}]"
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpevol_core::schema::Change;

    #[test]
    fn claims_are_read_beside_tests_and_a_bare_array_claims_nothing() {
        let reply = "```json\n{\"tests\": [{\"tool\": \"a_v2\", \"arguments\": {}, \"expect\": \"success\"}], \"claims\": [{\"kind\": \"variant\", \"tool\": \"a_v2\", \"source\": \"a\", \"max_chars\": null}]}\n```";
        assert_eq!(parse_tests(reply).unwrap()[0].tool, "a_v2");
        assert_eq!(
            parse_claims(reply).unwrap(),
            [mcpevol_oracle::validate::Effect::Variant {
                tool: "a_v2".into(),
                source: "a".into(),
                max_chars: None
            }]
        );
        assert!(
            parse_claims("[{\"tool\": \"a\", \"expect\": \"success\"}]")
                .unwrap()
                .is_empty()
        );
        assert!(parse_claims("{\"tests\": [], \"claims\": [{\"kind\": \"magic\"}]}").is_err());
    }

    #[test]
    fn blocks_are_read_with_their_file_paths_from_a_fenced_reply() {
        let reply = "Here is the change.\n\nsrc/index.js\n```js\n<<<<<<< SEARCH\n  a: 1,\n=======\n  a: 2,\n>>>>>>> REPLACE\n```\n\n`lib/b.js`\n<<<<<<< SEARCH\nx();\n=======\ny();\n>>>>>>> REPLACE\n";
        let hunks = parse_blocks(reply).unwrap();
        assert_eq!(hunks.len(), 2);
        assert_eq!(
            hunks[0],
            Hunk {
                file: "src/index.js".into(),
                search: "  a: 1,\n".into(),
                replace: "  a: 2,\n".into()
            }
        );
        assert_eq!(hunks[1].file, "lib/b.js");
    }

    #[test]
    fn an_empty_replace_deletes_and_an_unclosed_block_is_reported_with_its_line() {
        let hunks =
            parse_blocks("a.js\n<<<<<<< SEARCH\ngone();\n=======\n>>>>>>> REPLACE\n").unwrap();
        assert_eq!(hunks[0].replace, "");
        assert_eq!(
            parse_blocks("a.js\n<<<<<<< SEARCH\nx\n"),
            Err(ReplyError::Unclosed { index: 1, line: 2 })
        );
        assert_eq!(parse_blocks("I cannot do that."), Err(ReplyError::NoBlocks));
        assert_eq!(
            parse_blocks("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"),
            Err(ReplyError::NoFile { index: 1, line: 1 })
        );
    }

    #[test]
    fn a_selection_is_read_from_a_json_fence_or_bare_json() {
        let s = parse_selection("I pick:\n```json\n{\"operator\": \"O5\", \"targets\": [\"echo\"], \"rationale\": \"flexible\"}\n```").unwrap();
        assert_eq!(s.operator, mcpevol_core::operators::OperatorId::parse("O5"));
        assert_eq!(
            parse_selection("{\"operator\":\"O9\",\"targets\":[\"a\"]} done")
                .unwrap()
                .targets,
            ["a"]
        );
        assert!(matches!(
            parse_selection("operator O5 please"),
            Err(ReplyError::NoJson { .. })
        ));
        assert!(matches!(
            parse_selection("{\"op\": 1}"),
            Err(ReplyError::BadJson(_))
        ));
    }

    #[test]
    fn generated_tests_must_expect_success_or_error() {
        let t = parse_tests("```json\n[{\"tool\": \"echo\", \"arguments\": {\"m\": \"hi\"}, \"expect\": \"success\", \"contains\": \"hi\"}]\n```").unwrap();
        assert_eq!(t[0].contains.as_deref(), Some("hi"));
        assert!(parse_tests("[{\"tool\": \"echo\", \"expect\": \"maybe\"}]").is_err());
    }

    fn case(tool: &str, args: serde_json::Value) -> GeneratedTest {
        GeneratedTest {
            tool: tool.into(),
            arguments: args.as_object().cloned().unwrap_or_default(),
            expect: Expect::Success,
            contains: None,
        }
    }

    #[test]
    fn a_call_exercises_a_parameter_change_only_when_it_sets_the_parameter() {
        let added = SchemaChange::of(
            "get_forecast",
            Change::ParamAdded {
                param: "days".into(),
                required: false,
            },
        );
        let changes = vec![added];
        let paris = serde_json::json!({"city": "paris"});
        assert!(!case("get_forecast", paris).exercises(&changes));
        let two_days = serde_json::json!({"city": "paris", "days": 2});
        assert!(case("get_forecast", two_days).exercises(&changes));
        let other = serde_json::json!({"days": 2});
        assert!(!case("list_cities", other).exercises(&changes));
        let new_tool = vec![SchemaChange::of("get_alerts", Change::ToolAdded)];
        assert!(case("get_alerts", serde_json::json!({})).exercises(&new_tool));
    }
}
