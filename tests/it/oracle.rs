//! The oracle rejects dishonest changes: for each operator, a hand-made version of its change
//! that lies about behaviour (a handler that throws on the new parameter, a rename that leaves
//! the old `case`, a description change that also alters the output, an unenforced bound said
//! to be enforced, ...) fails with a reason that names the lie, and the workspace stays at its
//! last good version; the rules backend's honest change of the same operator commits.
//!
//! All on `fixtures/switch-esm`, a low-level JSON-schema server that dispatches with `switch`
//! and validates nothing itself, so every check has to come from the oracle.
//!
//! Over 500 lines on purpose: the lies and garbles are two tables of hand-written edits, one
//! entry per operator, read side by side with the operators they break.

use crate::common;

use std::path::Path;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::init::{InitOptions, init};
use mcpevol::mutate::Proposal;
use mcpevol::validate::Effect;
use mcpevol::workspace::Workspace;

const FILE: &str = "server.js";

fn options(operators: &[&str]) -> EvolveOptions {
    EvolveOptions {
        operators: operators
            .iter()
            .map(|s| mcpevol::operators::OperatorId::parse(s))
            .collect(),
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 7)
    }
}

/// A fresh workspace of the switch fixture at v0.
fn workspace(rt: &tokio::runtime::Runtime, dir: &Path, name: &str) -> std::path::PathBuf {
    workspace_of(rt, dir, name, "switch-esm")
}

fn workspace_of(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    name: &str,
    fixture: &str,
) -> std::path::PathBuf {
    let work = dir.join(name);
    let fixture = common::repo().join("fixtures").join(fixture);
    let opts = InitOptions::new(None);
    rt.block_on(init(&fixture.to_string_lossy(), &work, &opts))
        .unwrap();
    work
}

/// The given-edits backend with one proposal.
fn given(
    operator: &str,
    targets: &[&str],
    added: &[&str],
    summary: String,
    hunks: Vec<Hunk>,
    effects: Vec<Effect>,
) -> Backend {
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    Backend::Given {
        proposal: Box::new(Proposal {
            operator: mcpevol::operators::OperatorId::parse(operator),
            targets: names(targets),
            added: names(added),
            summary,
            hunks,
            effects,
        }),
    }
}

fn hunk(search: &str, replace: &str) -> Hunk {
    Hunk {
        file: FILE.into(),
        search: search.into(),
        replace: replace.into(),
    }
}

struct Lie {
    operator: &'static str,
    targets: &'static [&'static str],
    added: &'static [&'static str],
    hunks: Vec<Hunk>,
    effects: Vec<Effect>,
    /// Words the failure's reason must contain.
    named: &'static str,
}

const LIST_CITIES_CASE: &str = "    case \"list_cities\":\n      return { content: [{ type: \"text\", text: Object.keys(CITIES).join(\", \") }] };";
const LIST_CITIES_DEF: &str = "      name: \"list_cities\",\n      description: \"List the cities that have forecasts\",\n      inputSchema: { type: \"object\", properties: {} },";

fn lies() -> Vec<Lie> {
    let max_chars = "max_chars: { type: \"integer\", minimum: 1, description: \"Cut each text part of the result to at most this many characters.\" }";
    let alias_def = format!(
        "{LIST_CITIES_DEF}\n    }},\n    {{\n      name: \"list_cities_alias\",\n      description: \"Alias of `list_cities`: it behaves exactly as `list_cities` does\",\n      inputSchema: {{ type: \"object\", properties: {{}} }},"
    );
    let alias = Effect::Variant {
        tool: "list_cities_alias".into(),
        source: "list_cities".into(),
        max_chars: None,
    };
    vec![
        Lie {
            operator: "O1",
            targets: &["list_cities"],
            added: &["list_cities_alias"],
            hunks: vec![
                hunk(LIST_CITIES_DEF, &alias_def),
                hunk(
                    LIST_CITIES_CASE,
                    &format!("{LIST_CITIES_CASE}\n    case \"list_cities_alias\":\n      return {{ content: [{{ type: \"text\", text: \"paris\" }}] }};"),
                ),
            ],
            effects: vec![alias.clone()],
            named: "not `list_cities`'s answer",
        },
        Lie {
            operator: "O2",
            targets: &["get_forecast"],
            added: &["get_forecast_v2"],
            hunks: vec![
                hunk("      name: \"get_forecast\",", "      name: \"get_forecast_v2\","),
                hunk("    case \"get_forecast\": {", "    case \"get_forecast_v2\":\n    case \"get_forecast\": {"),
            ],
            effects: vec![],
            named: "old name still answers",
        },
        Lie {
            operator: "O3",
            targets: &["list_cities"],
            added: &[],
            hunks: vec![hunk(
                &format!("    {{\n{LIST_CITIES_DEF}\n    }},\n"),
                "",
            )],
            effects: vec![],
            named: "old name still answers",
        },
        Lie {
            operator: "O4",
            targets: &["list_cities"],
            added: &["list_cities_alias"],
            hunks: vec![
                hunk(
                    LIST_CITIES_DEF,
                    &alias_def.replacen(
                        "List the cities that have forecasts\"",
                        "List the cities that have forecasts. Also available as `list_cities_alias`, which behaves the same.\"",
                        1,
                    ),
                ),
                hunk(
                    LIST_CITIES_CASE,
                    &format!("{LIST_CITIES_CASE}\n    case \"list_cities_alias\":\n      return {{ content: [{{ type: \"text\", text: \"lima\" }}] }};"),
                ),
            ],
            effects: vec![alias],
            named: "not `list_cities`'s answer",
        },
        Lie {
            operator: "O5",
            targets: &["list_cities"],
            added: &[],
            hunks: vec![
                hunk(
                    "inputSchema: { type: \"object\", properties: {} },",
                    &format!("inputSchema: {{ type: \"object\", properties: {{ {max_chars} }} }},"),
                ),
                hunk(
                    "    case \"list_cities\":\n",
                    "    case \"list_cities\":\n      if (args.max_chars) throw new Error(\"max_chars is not supported\");\n",
                ),
            ],
            effects: vec![Effect::TruncateChars {
                tool: "list_cities".into(),
                param: "max_chars".into(),
            }],
            named: "RpcError",
        },
        Lie {
            operator: "O6",
            targets: &["get_forecast"],
            added: &[],
            hunks: vec![hunk(
                "city: { type: \"string\", description: \"City name, e.g. paris\" },",
                "city: { type: \"string\", maxLength: 500, description: \"City name, e.g. paris\" },",
            )],
            effects: vec![Effect::Enforced {
                tool: "get_forecast".into(),
                param: "city".into(),
            }],
            named: "said to be enforced",
        },
        Lie {
            operator: "O7",
            targets: &["get_forecast"],
            added: &[],
            hunks: vec![
                hunk(
                    "          unit: { type: \"string\", enum: [\"celsius\", \"fahrenheit\", \"kelvin\"], description: \"Temperature unit\" },\n",
                    "",
                ),
                hunk("      const unit = args.unit ?? \"celsius\";", "      const unit = args.unit;"),
            ],
            effects: vec![],
            named: "where the previous version succeeded",
        },
        Lie {
            operator: "O8",
            targets: &["list_cities"],
            added: &[],
            hunks: vec![
                hunk(
                    "      description: \"List the cities that have forecasts\",\n      inputSchema: { type: \"object\", properties: {} },",
                    &format!("      description: \"List the cities that have forecasts; `max_chars` cuts the answer.\",\n      inputSchema: {{ type: \"object\", properties: {{ {max_chars} }} }},"),
                ),
                hunk(
                    "    case \"list_cities\":\n",
                    "    case \"list_cities\":\n      if (args.max_chars) return { content: [{ type: \"text\", text: \"\" }], isError: true };\n",
                ),
            ],
            effects: vec![],
            named: "with the new parameter set",
        },
        Lie {
            operator: "O9",
            targets: &["list_cities"],
            added: &[],
            hunks: vec![
                hunk(
                    "      description: \"List the cities that have forecasts\",",
                    "      description: \"List the cities that have forecasts, separated by semicolons\",",
                ),
                hunk("Object.keys(CITIES).join(\", \")", "Object.keys(CITIES).join(\"; \")"),
            ],
            effects: vec![],
            named: "differs from the previous version",
        },
        Lie {
            operator: "O10",
            targets: &["convert_temperature"],
            added: &[],
            hunks: vec![
                hunk(
                    "value: { type: \"number\", description: \"Temperature in Celsius\" },",
                    "value: { type: \"number\", description: \"Temperature in Celsius, rounded to whole degrees\" },",
                ),
                hunk(
                    "text: `${fromCelsius(Number(args.value), args.to)} ${args.to}`",
                    "text: `${Math.round(fromCelsius(Number(args.value), args.to)) + 1} ${args.to}`",
                ),
            ],
            effects: vec![],
            named: "differs from the previous version",
        },
        Lie {
            operator: "O11",
            targets: &["convert_temperature"],
            added: &[],
            hunks: vec![
                hunk(
                    "      description: \"Convert a Celsius temperature to another unit\",",
                    "      description: \"Convert a Celsius temperature to another unit, with the unit's symbol\",",
                ),
                hunk(
                    "value: { type: \"number\", description: \"Temperature in Celsius\" },",
                    "value: { type: \"number\", description: \"Temperature in degrees Celsius\" },",
                ),
                hunk(
                    "text: `${fromCelsius(Number(args.value), args.to)} ${args.to}`",
                    "text: `${fromCelsius(Number(args.value), args.to)} ${args.to[0].toUpperCase()}`",
                ),
            ],
            effects: vec![],
            named: "differs from the previous version",
        },
    ]
}

#[test]
fn each_operators_dishonest_change_is_rejected_with_its_reason_and_its_honest_change_commits() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Lies are rolled back, so their workspace stays at v0 and every lie applies to it; the
    // honest changes evolve a workspace of their own.
    let work = workspace(&rt, dir.path(), "lies");
    let honest_work = workspace(&rt, dir.path(), "honest");
    let ws = Workspace::open(&work).unwrap();
    let mut problems = Vec::new();
    for lie in lies() {
        let before = ws.head().unwrap();
        let summary = format!("a dishonest {}", lie.operator);
        let given = given(
            lie.operator,
            lie.targets,
            lie.added,
            summary,
            lie.hunks,
            lie.effects,
        );
        let rounds = rt
            .block_on(evolve::evolve(&work, &given, &options(&[]), |_| {}))
            .unwrap();
        let round = &rounds[0];
        let reason = round.reason.clone().unwrap_or_default();
        if round.status != RoundStatus::Failed || !reason.contains(lie.named) {
            problems.push(format!(
                "{}: expected a failure naming {:?}, got {:?}: {reason}",
                lie.operator, lie.named, round.status
            ));
        }
        assert!(!reason.contains('\n'), "one line: {reason}");
        assert_eq!(ws.head().unwrap(), before, "{} left a commit", lie.operator);
        assert!(
            ws.dirty_paths().unwrap().is_empty(),
            "{} left edits",
            lie.operator
        );

        let honest = rt
            .block_on(evolve::evolve(
                &honest_work,
                &Backend::Rules,
                &options(&[lie.operator]),
                |_| {},
            ))
            .unwrap();
        if honest[0].status != RoundStatus::Committed {
            problems.push(format!(
                "{}: the honest change did not commit: {:?}",
                lie.operator, honest[0].reason
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A change that only garbles descriptions: the oracle's calls all answer as before, so only
/// the description check can refuse it.
struct Garble {
    fixture: &'static str,
    operator: &'static str,
    targets: &'static [&'static str],
    added: &'static [&'static str],
    hunks: Vec<Hunk>,
    /// Words the failure's reason must contain besides the check's own.
    named: &'static str,
}

fn in_file(file: &str, search: &str, replace: &str) -> Hunk {
    Hunk {
        file: file.into(),
        search: search.into(),
        replace: replace.into(),
    }
}

const FORMS: &str = "src/index.js";
const SEARCH_DESCRIPTION: &str = "    description: \"Search the built-in pages for a phrase. \" +\n      \"Returns up to 5 matching titles, one per line.\",";
const PLAN_DESCRIPTION: &str = "    description: `Plan a task as numbered steps.\n\nWhen to use:\n- breaking a goal into parts\n- checking progress on a goal\n\nSteps:\n1. Give the goal\n2. Read the plan back`,";
const COMPAT_TOOL: &str = r#"server.registerTool(
  "web_search_compat",
  {
    description: "Compatibility alias of `web_search`: it behaves exactly as `web_search` does. .",
    inputSchema: {
      query: z.string().min(1).describe("Words to look for in page titles"),
      limit: z.number().int().min(1).max(5).default(5).describe(LIMIT_HELP),
    },
  },
  async ({ query, limit }) => {
    const found = Object.values(PAGES).filter((t) => t.toLowerCase().includes(query.toLowerCase()));
    return { content: [{ type: "text", text: found.slice(0, limit).join("\n") }] };
  },
);

"#;

fn garbles() -> Vec<Garble> {
    let describe =
        |operator, target: &'static [&'static str], search: &str, replace: &str, named| Garble {
            fixture: "switch-esm",
            operator,
            targets: target,
            added: &[],
            hunks: vec![hunk(search, replace)],
            named,
        };
    const CITIES: &str = "      description: \"List the cities that have forecasts\",";
    const FORECAST: &str = "      description: \"Get today's forecast for a city\",";
    vec![
        // The real incident: a concatenated description replaced by a pointer, and an alias
        // whose description ends in ". .".
        Garble {
            fixture: "description-forms",
            operator: "O4",
            targets: &["web_search"],
            added: &["web_search_compat"],
            hunks: vec![
                in_file(
                    FORMS,
                    SEARCH_DESCRIPTION,
                    "    description: \". Also available as `web_search_compat`, which behaves the same.\",",
                ),
                in_file(
                    FORMS,
                    "server.registerTool(\n  \"plan_task\",",
                    &format!("{COMPAT_TOOL}server.registerTool(\n  \"plan_task\","),
                ),
            ],
            named: "no longer holds its original text",
        },
        Garble {
            fixture: "description-forms",
            operator: "O9",
            targets: &["plan_task"],
            added: &[],
            hunks: vec![in_file(
                FORMS,
                PLAN_DESCRIPTION,
                "    description: \"Plan a task as numbered steps. When to use: breaking a goal into parts, checking progress on a goal. Steps: 1. Give the goal 2. Read the plan back\",",
            )],
            named: "was flattened from 9 lines to 1",
        },
        describe(
            "O9",
            &["list_cities"],
            CITIES,
            "      description: \"\",",
            "is empty",
        ),
        describe(
            "O9",
            &["list_cities"],
            CITIES,
            "      description: \"List the cities that have forecasts. Use `list_cities` to list cities.\",",
            "says nothing",
        ),
        describe(
            "O9",
            &["get_forecast"],
            FORECAST,
            "      description: \"Fetches weather data.\",",
            "lost most of what the original said",
        ),
        describe(
            "O9",
            &["get_forecast"],
            FORECAST,
            "      description: \"List the cities that have forecasts\",",
            "is the same as that of `list_cities`",
        ),
        describe(
            "O9",
            &["list_cities"],
            CITIES,
            "      description: \"List the the cities that have forecasts. .\",",
            "repeats the word",
        ),
        describe(
            "O9",
            &["list_cities"],
            CITIES,
            "      description: \"List the cities that have forecasts (see `get_forecast.\",",
            "unbalanced",
        ),
        describe(
            "O10",
            &["get_forecast"],
            "city: { type: \"string\", description: \"City name, e.g. paris\" },",
            "city: { type: \"string\", description: \"Required string: the city.\" },",
            "says nothing",
        ),
    ]
}

#[test]
fn descriptions_lost_garbled_or_padded_are_refused_by_the_description_check() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut works = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    for g in garbles() {
        let work = works
            .entry(g.fixture)
            .or_insert_with(|| workspace_of(&rt, dir.path(), g.fixture, g.fixture))
            .clone();
        let ws = Workspace::open(&work).unwrap();
        let before = ws.head().unwrap();
        let summary = format!("a garbling {}", g.operator);
        let given = given(g.operator, g.targets, g.added, summary, g.hunks, Vec::new());
        let rounds = rt
            .block_on(evolve::evolve(&work, &given, &options(&[]), |_| {}))
            .unwrap();
        let reason = rounds[0].reason.clone().unwrap_or_default();
        if rounds[0].status != RoundStatus::Failed
            || !reason.contains("the description check refuses")
            || !reason.contains(g.named)
        {
            problems.push(format!(
                "{} on {:?}: expected the description check naming {:?}, got {:?}: {reason}",
                g.operator, g.targets, g.named, rounds[0].status
            ));
        }
        assert_eq!(ws.head().unwrap(), before, "{} left a commit", g.operator);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
