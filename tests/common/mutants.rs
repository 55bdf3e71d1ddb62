//! The oracle mutation suite, as cargo-mutants does for code: hand-made edits of the four
//! `fixtures/oracle/mutants-*` servers (JavaScript with JSON schemas, JavaScript with zod,
//! Python FastMCP, Python low-level), each planting one known defect, judged through the same
//! attempt loop as any backend's edit (`Backend::Given`). A defect is killed when its round is
//! refused, or committed unproven, with a reason that names it; each honest control beside them
//! must commit proven. A mutant with model cases goes through the model path instead, a STUB
//! endpoint (`stub.rs`) answering the choice, the edits and the cases, so that what a model's
//! own cases may prove is measured too. Shared by `tests/it/mutants.rs` and
//! `examples/oracle_mutants.rs`.
//!
//! Over 500 lines on purpose: [`all`] is the suite's table, one short entry per mutant, which
//! reads best whole.

use std::sync::Arc;
use std::time::Duration;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::llm::{LlmClient, LlmConfig};
use mcpevol::mutate::Proposal;
use mcpevol::operators::OperatorId;
use mcpevol::validate::Effect;
use mcpevol::version_record::read_round;
use mcpevol::workspace::Workspace;

/// The server style a mutant is planted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Json,
    Zod,
    FastMcp,
    LowLevel,
}

impl Style {
    pub fn fixture(self) -> &'static str {
        match self {
            Style::Json => "mutants-json",
            Style::Zod => "mutants-zod",
            Style::FastMcp => "mutants-fastmcp",
            Style::LowLevel => "mutants-lowlevel",
        }
    }

    fn file(self) -> &'static str {
        match self {
            Style::Json | Style::Zod => "server.js",
            Style::FastMcp | Style::LowLevel => "server.py",
        }
    }
}

/// How a mutant must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Refused, with a reason holding this text.
    Refused(&'static str),
    /// Committed unproven, with a reason holding this text.
    Unproven(&'static str),
    /// An honest control: committed and proven.
    Proven,
}

/// One planted edit.
pub struct Mutant {
    pub name: &'static str,
    /// The defect class of issue 36 it stands for.
    pub class: &'static str,
    pub style: Style,
    pub operator: &'static str,
    pub targets: &'static [&'static str],
    pub added: &'static [&'static str],
    pub hunks: Vec<(&'static str, &'static str)>,
    pub effects: Vec<Effect>,
    pub expected: Expected,
    /// The model's own test cases (the `tests` JSON list of its reply): the mutant goes through
    /// the model path, its edits written by the stub model.
    pub cases: Option<&'static str>,
}

impl Mutant {
    fn hunks(&self) -> Vec<Hunk> {
        (self.hunks.iter())
            .map(|(search, replace)| Hunk {
                file: self.style.file().into(),
                search: (*search).into(),
                replace: (*replace).into(),
            })
            .collect()
    }

    /// The stub model's replies for this mutant: the operator and targets, the edits, the
    /// cases; then refusals, should it be asked again.
    fn script(&self, cases: &str) -> Vec<super::stub::Scripted> {
        use super::stub::Scripted;
        let choice = serde_json::json!({"operator": self.operator, "targets": self.targets, "rationale": "planted"});
        let mut blocks = String::from("Here are the edits.\n\n");
        for h in self.hunks() {
            let lines = |t: &str| match t.strip_suffix('\n').unwrap_or(t) {
                "" => String::new(),
                t => format!("{t}\n"),
            };
            blocks += &format!(
                "{}\n```\n<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n```\n\n",
                h.file,
                lines(&h.search),
                lines(&h.replace)
            );
        }
        let claims = serde_json::to_string(&self.effects).unwrap();
        let mut script = vec![
            Scripted::reply(format!("```json\n{choice}\n```")),
            Scripted::reply(blocks),
            Scripted::reply(format!(
                "```json\n{{\"tests\": {cases}, \"claims\": {claims}}}\n```"
            )),
        ];
        script.extend((0..6).map(|_| Scripted::reply("No.")));
        script
    }

    fn backend(&self) -> Backend {
        let names = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Backend::Given {
            proposal: Box::new(Proposal {
                operator: OperatorId::parse(self.operator),
                targets: names(self.targets),
                added: names(self.added),
                summary: format!("{}: {}", self.name, self.class),
                hunks: self.hunks(),
                effects: self.effects.clone(),
            }),
        }
    }
}

/// How a mutant's round ended.
#[derive(Debug)]
pub struct Judged {
    pub status: RoundStatus,
    pub proven: Option<bool>,
    /// The refusal, or the reason it is unproven.
    pub reason: String,
}

impl Judged {
    /// Whether the round ended as `expected` says.
    pub fn as_expected(&self, expected: Expected) -> bool {
        match expected {
            Expected::Refused(why) => {
                self.status == RoundStatus::Failed && self.reason.contains(why)
            }
            Expected::Unproven(why) => {
                self.status == RoundStatus::Committed
                    && self.proven == Some(false)
                    && self.reason.contains(why)
            }
            Expected::Proven => self.status == RoundStatus::Committed && self.proven == Some(true),
        }
    }
}

/// One round of `mutant` on a fresh workspace of its fixture under `dir`.
pub fn judge(rt: &tokio::runtime::Runtime, mutant: &Mutant, dir: &std::path::Path) -> Judged {
    let work = dir.join(mutant.name);
    let fixture = super::repo()
        .join("fixtures/oracle")
        .join(mutant.style.fixture());
    let opts = mcpevol::init::InitOptions::new(None);
    rt.block_on(mcpevol::init::init(
        &fixture.to_string_lossy(),
        &work,
        &opts,
    ))
    .unwrap_or_else(|e| panic!("{}: init: {e}", mutant.name));
    let mut options = EvolveOptions {
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 7)
    };
    let (backend, _stub) = match mutant.cases {
        None => (mutant.backend(), None),
        Some(cases) => {
            let stub = super::stub::StubServer::start(mutant.script(cases));
            let config = LlmConfig {
                base_url: stub.base_url.clone(),
                api_key: Some("sk-stub-mutants".into()),
                timeout: Duration::from_secs(30),
                max_retries: 0,
                ..LlmConfig::default()
            };
            options.operators = vec![OperatorId::parse(mutant.operator)];
            options.max_attempts = 1;
            let backend = Backend::Llm {
                model: config.model.clone(),
                provider: config.provider(),
                chat: Arc::new(LlmClient::new(config).unwrap()),
            };
            (backend, Some(stub))
        }
    };
    let rounds = rt
        .block_on(evolve::evolve(&work, &backend, &options, |_| {}))
        .unwrap_or_else(|e| panic!("{}: {e}", mutant.name));
    let status = rounds[0].status;
    if status != RoundStatus::Committed {
        return Judged {
            status,
            proven: None,
            reason: rounds[0].reason.clone().unwrap_or_default(),
        };
    }
    let ws = Workspace::open(&work).unwrap();
    let record = read_round(&ws, rounds[0].version).unwrap().unwrap();
    Judged {
        status,
        proven: Some(record.proof.is_proven()),
        reason: record.proof.unproven_reason.clone().unwrap_or_default(),
    }
}

fn enforced(tool: &str, param: &str) -> Effect {
    Effect::Enforced {
        tool: tool.into(),
        param: param.into(),
    }
}

fn variant(tool: &str, source: &str) -> Effect {
    Effect::Variant {
        tool: tool.into(),
        source: source.into(),
        max_chars: None,
    }
}

/// Every planted defect and honest control.
// Long: one entry per mutant, each a short table row; split, the suite would be harder to read.
pub fn all() -> Vec<Mutant> {
    use Expected::*;
    use Style::*;
    let m = |name, class, style, operator, targets, hunks, expected| Mutant {
        name,
        class,
        style,
        operator,
        targets,
        added: &[],
        hunks,
        effects: Vec::new(),
        expected,
        cases: None,
    };
    const JS_DESC: (&str, &str) = (
        "description: \"Get the forecast for a city, e.g. paris\"",
        "description: \"Get the weather forecast for a city, e.g. paris\"",
    );
    const PY_DESC: (&str, &str) = (
        "\"\"\"Get the forecast for a city, e.g. paris\"\"\"",
        "\"\"\"Get the weather forecast for a city, e.g. paris\"\"\"",
    );
    const LL_DESC: (&str, &str) = (
        "description=\"Get the forecast for a city, e.g. paris\"",
        "description=\"Get the weather forecast for a city, e.g. paris\"",
    );
    const CLEANUP_900: (&str, &str) = ("every 300 seconds", "every 900 seconds");
    // A `units` parameter of `forecast` (the defect leaves it at that; honest edits convert).
    const JSON_UNITS: (&str, &str) = (
        "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },",
        "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },\n          units: { type: \"string\", enum: [\"C\", \"F\"], description: \"The units of the temperature.\" },",
    );
    const JSON_CONVERT: (&str, &str) = (
        "      return text(`Forecast for ${args.city}${span}: sunny, 14 C`);",
        "      const temp = args.units === \"F\" ? \"57 F\" : \"14 C\";\n      return text(`Forecast for ${args.city}${span}: sunny, ${temp}`);",
    );
    const ZOD_UNITS: (&str, &str) = (
        "      days: z.number().int().min(1).max(7).optional().describe(\"How many days\"),",
        "      days: z.number().int().min(1).max(7).optional().describe(\"How many days\"),\n      units: z.enum([\"C\", \"F\"]).optional().describe(\"The units of the temperature.\"),",
    );
    const WINDOW_LATER: (&str, &str) = ("opens at 10:00:00", "opens at 10:05:00");
    let mut out = vec![
        // JavaScript, JSON schemas, one dispatch.
        m(
            "json-ignored-param",
            "a new optional parameter the handler ignores",
            Json,
            "O5",
            &["forecast"],
            vec![JSON_UNITS],
            Unproven("no value of `units` changed the answer"),
        ),
        m(
            "json-other-answer",
            "another tool's answer changed where a duration is",
            Json,
            "O9",
            &["forecast"],
            vec![JS_DESC, CLEANUP_900],
            Refused("every 300 seconds"),
        ),
        Mutant {
            effects: vec![enforced("echo", "text")],
            ..m(
                "json-bound-claimed-not-enforced",
                "a bound claimed but not enforced",
                Json,
                "O6",
                &["echo"],
                vec![(
                    "properties: { text: { type: \"string\" } }",
                    "properties: { text: { type: \"string\", maxLength: 5 } }",
                )],
                Refused("said to be enforced"),
            )
        },
        m(
            "json-tighter-bound-unenforced",
            "a tighter bound proven by a value inside it",
            Json,
            "O6",
            &["forecast"],
            vec![("minimum: 1, maximum: 7 },", "minimum: 1, maximum: 3 },")],
            Unproven("not enforced"),
        ),
        Mutant {
            added: &["weather"],
            ..m(
                "json-tool-not-routed",
                "a new tool not routed",
                Json,
                "O1",
                &[],
                vec![(
                    "    {\n      name: \"motto\",",
                    "    {\n      name: \"weather\",\n      description: \"Today's weather in a city\",\n      inputSchema: { type: \"object\", properties: { city: { type: \"string\" } }, required: [\"city\"] },\n    },\n    {\n      name: \"motto\",",
                )],
                Refused("weather"),
            )
        },
        Mutant {
            added: &["weekly"],
            ..m(
                "json-integration-not-routed",
                "an integrated tool not routed",
                Json,
                "O4",
                &["forecast"],
                vec![
                    (
                        "description: \"Get the forecast for a city, e.g. paris\"",
                        "description: \"Get the forecast for a city, e.g. paris; see weekly for the week ahead\"",
                    ),
                    (
                        "    {\n      name: \"motto\",",
                        "    {\n      name: \"weekly\",\n      description: \"The week's forecast for a city\",\n      inputSchema: { type: \"object\", properties: { city: { type: \"string\" } }, required: [\"city\"] },\n    },\n    {\n      name: \"motto\",",
                    ),
                ],
                Refused("weekly"),
            )
        },
        Mutant {
            added: &["repeat"],
            ..m(
                "json-rename-not-routed",
                "a rename not routed",
                Json,
                "O2",
                &["echo"],
                vec![("      name: \"echo\",", "      name: \"repeat\",")],
                Refused("the old name still answers"),
            )
        },
        m(
            "json-removal-still-answers",
            "a removed tool that still answers",
            Json,
            "O3",
            &["echo"],
            vec![(
                "    {\n      name: \"echo\",\n      description: \"Repeat a text\",\n      inputSchema: { type: \"object\", properties: { text: { type: \"string\" } }, required: [\"text\"] },\n    },\n",
                "",
            )],
            Refused("still answers"),
        ),
        m(
            "json-pruned-param-still-read",
            "a removed parameter the handler still reads",
            Json,
            "O7",
            &["forecast"],
            vec![(
                "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },\n",
                "",
            )],
            Refused("still changes the answer"),
        ),
        m(
            "json-required-not-enforced",
            "a parameter made required that is not",
            Json,
            "O6",
            &["forecast"],
            vec![(
                "        required: [\"city\"],",
                "        required: [\"city\", \"days\"],",
            )],
            Refused("still answers"),
        ),
        m(
            "json-crash-then-answers",
            "a changed tool that crashes, then answers after a restart",
            Json,
            "O5",
            &["forecast"],
            vec![
                (
                    "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },",
                    "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },\n          loud: { type: \"boolean\", description: \"Shout the forecast\" },",
                ),
                (
                    "    case \"forecast\": {\n      if (!args.city) throw new Error(\"city is required\");",
                    "    case \"forecast\": {\n      if (!args.city) throw new Error(\"city is required\");\n      forecasts += 1;\n      if (args.loud !== undefined && forecasts > 1) process.exit(3);",
                ),
                (
                    "const text = (t) =>",
                    "let forecasts = 0;\nconst text = (t) =>",
                ),
                (
                    "      return text(`Forecast for ${args.city}${span}: sunny, 14 C`);",
                    "      const line = `Forecast for ${args.city}${span}: sunny, 14 C`;\n      return text(args.loud ? line.toUpperCase() : line);",
                ),
            ],
            Refused("crashed"),
        ),
        m(
            "json-control-description",
            "honest: a description updated",
            Json,
            "O9",
            &["forecast"],
            vec![JS_DESC],
            Proven,
        ),
        m(
            "json-control-param",
            "honest: a parameter that converts the temperature",
            Json,
            "O5",
            &["forecast"],
            vec![JSON_UNITS, JSON_CONVERT],
            Proven,
        ),
        m(
            "json-control-volatile",
            "honest: the description of a tool whose answer reads the clock",
            Json,
            "O9",
            &["clock"],
            vec![(
                "description: \"The server's time\"",
                "description: \"The server's time, in UTC\"",
            )],
            Proven,
        ),
        // JavaScript, zod shapes, one registration per tool.
        m(
            "zod-ignored-param",
            "a new optional parameter the handler ignores",
            Zod,
            "O5",
            &["forecast"],
            vec![ZOD_UNITS],
            Unproven("no value of `units` changed the answer"),
        ),
        m(
            "zod-annotations-untargeted",
            "annotations flipped on a tool the round does not target",
            Zod,
            "O9",
            &["forecast"],
            vec![
                JS_DESC,
                (
                    "readOnlyHint: true, destructiveHint: false",
                    "readOnlyHint: true, destructiveHint: true",
                ),
            ],
            Refused("list_cities"),
        ),
        m(
            "zod-reordered",
            "another tool's output reordered",
            Zod,
            "O9",
            &["forecast"],
            vec![
                JS_DESC,
                (
                    "[\"paris\", \"lyon\", \"nice\"]",
                    "[\"lyon\", \"nice\", \"paris\"]",
                ),
            ],
            Refused("list_cities"),
        ),
        m(
            "zod-target-answer-changed",
            "the target's own output changed by a description-only operator",
            Zod,
            "O9",
            &["forecast"],
            vec![JS_DESC, (": sunny, 14 C`", ": cloudy, 14 C`")],
            Refused("sunny"),
        ),
        m(
            "zod-title-untargeted",
            "a title added to a tool the round does not target",
            Zod,
            "O9",
            &["forecast"],
            vec![
                JS_DESC,
                (
                    "{ description: \"The team's motto\", inputSchema: {} }",
                    "{ title: \"Motto\", description: \"The team's motto\", inputSchema: {} }",
                ),
            ],
            Refused("motto"),
        ),
        Mutant {
            added: &["slogan"],
            effects: vec![variant("slogan", "motto")],
            ..m(
                "zod-copy-differs-in-a-long-word",
                "a claimed copy whose answer differs where the old masks hid it",
                Zod,
                "O1",
                &[],
                vec![(
                    "server.registerTool(\n  \"clock\",",
                    "server.registerTool(\n  \"slogan\",\n  { description: \"The team's slogan\", inputSchema: {} },\n  async () => text(\"internationalisation makes the world go round\"),\n);\n\nserver.registerTool(\n  \"clock\",",
                )],
                Refused("slogan"),
            )
        },
        m(
            "zod-param-description-and-answer",
            "a parameter description update that changes the answer",
            Zod,
            "O10",
            &["forecast"],
            vec![
                (".describe(\"The city\")", ".describe(\"The city's name\")"),
                (": sunny, 14 C`", ": sunny, 15 C`"),
            ],
            Refused("14 C"),
        ),
        m(
            "zod-joint-description-other-answer",
            "a joint description update with another tool's answer changed",
            Zod,
            "O11",
            &["forecast"],
            vec![
                JS_DESC,
                (".describe(\"The city\")", ".describe(\"The city's name\")"),
                CLEANUP_900,
            ],
            Refused("every 300 seconds"),
        ),
        m(
            "zod-control-param",
            "honest: a parameter that converts the temperature",
            Zod,
            "O5",
            &["forecast"],
            vec![
                ZOD_UNITS,
                (
                    "  async ({ city, days }) => {",
                    "  async ({ city, days, units }) => {",
                ),
                (
                    "    return text(`Forecast for ${city}${span}: sunny, 14 C`);",
                    "    return text(`Forecast for ${city}${span}: sunny, ${units === \"F\" ? \"57 F\" : \"14 C\"}`);",
                ),
            ],
            Proven,
        ),
        // Python, FastMCP decorators.
        m(
            "fastmcp-ignored-param",
            "a new optional parameter the handler ignores",
            FastMcp,
            "O5",
            &["forecast"],
            vec![(
                "def forecast(city: str, days: int = 1) -> str:",
                "def forecast(city: str, days: int = 1, units: str = \"C\") -> str:",
            )],
            Unproven("no value of `units` changed the answer"),
        ),
        m(
            "fastmcp-target-answer-changed",
            "the target's own output changed by a description-only operator",
            FastMcp,
            "O9",
            &["forecast"],
            vec![PY_DESC, (": sunny, 14 C\"", ": cloudy, 14 C\"")],
            Refused("sunny"),
        ),
        m(
            "fastmcp-annotations-untargeted",
            "annotations flipped on a tool the round does not target",
            FastMcp,
            "O9",
            &["forecast"],
            vec![
                PY_DESC,
                (
                    "readOnlyHint=True, destructiveHint=False",
                    "readOnlyHint=True, destructiveHint=True",
                ),
            ],
            Refused("list_cities"),
        ),
        m(
            "fastmcp-time-of-day",
            "another tool's answer changed in a time of day",
            FastMcp,
            "O9",
            &["forecast"],
            vec![PY_DESC, WINDOW_LATER],
            Refused("10:00:00"),
        ),
        m(
            "fastmcp-refactor-ignored-param",
            "an interface refactoring whose new parameter is ignored",
            FastMcp,
            "O8",
            &["forecast"],
            vec![
                PY_DESC,
                (
                    "def forecast(city: str, days: int = 1) -> str:",
                    "def forecast(city: str, days: int = 1, detail: bool = False) -> str:",
                ),
            ],
            Unproven("no value of `detail` changed the answer"),
        ),
        Mutant {
            added: &["shout"],
            effects: vec![variant("shout", "echo")],
            ..m(
                "fastmcp-copy-answers-otherwise",
                "a claimed copy that answers otherwise",
                FastMcp,
                "O1",
                &[],
                vec![(
                    "@mcp.tool()\ndef motto() -> str:",
                    "@mcp.tool()\ndef shout(text: str) -> str:\n    \"\"\"Repeat a text, word for word\"\"\"\n    return text.upper()\n\n\n@mcp.tool()\ndef motto() -> str:",
                )],
                Refused("not `echo`'s answer"),
            )
        },
        m(
            "fastmcp-control-description",
            "honest: a description updated",
            FastMcp,
            "O9",
            &["forecast"],
            vec![PY_DESC],
            Proven,
        ),
        m(
            "fastmcp-control-param",
            "honest: a parameter that converts the temperature",
            FastMcp,
            "O5",
            &["forecast"],
            vec![
                (
                    "def forecast(city: str, days: int = 1) -> str:",
                    "def forecast(city: str, days: int = 1, units: Literal[\"C\", \"F\"] = \"C\") -> str:",
                ),
                ("import json\n", "import json\nfrom typing import Literal\n"),
                (
                    "    return f\"Forecast for {city}{span}: sunny, 14 C\"",
                    "    temp = \"57 F\" if units == \"F\" else \"14 C\"\n    return f\"Forecast for {city}{span}: sunny, {temp}\"",
                ),
            ],
            Proven,
        ),
        // Python, the low-level Server, one `if` dispatch.
        m(
            "lowlevel-other-answer",
            "another tool's answer changed where a duration is",
            LowLevel,
            "O9",
            &["forecast"],
            vec![LL_DESC, CLEANUP_900],
            Refused("every 300 seconds"),
        ),
        Mutant {
            added: &["weather"],
            ..m(
                "lowlevel-tool-not-routed",
                "a new tool not routed",
                LowLevel,
                "O1",
                &[],
                vec![(
                    "        types.Tool(\n            name=\"motto\",",
                    "        types.Tool(\n            name=\"weather\",\n            description=\"Today's weather in a city\",\n            inputSchema={\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]},\n        ),\n        types.Tool(\n            name=\"motto\",",
                )],
                Refused("weather"),
            )
        },
        Mutant {
            added: &["repeat"],
            ..m(
                "lowlevel-rename-not-routed",
                "a rename not routed",
                LowLevel,
                "O2",
                &["echo"],
                vec![("            name=\"echo\",", "            name=\"repeat\",")],
                Refused("the old name still answers"),
            )
        },
        m(
            "lowlevel-ignored-param",
            "a new optional parameter the handler ignores",
            LowLevel,
            "O5",
            &["forecast"],
            vec![(
                "\"minimum\": 1, \"maximum\": 7},",
                "\"minimum\": 1, \"maximum\": 7},\n                    \"units\": {\"type\": \"string\", \"enum\": [\"C\", \"F\"]},",
            )],
            Unproven("no value of `units` changed the answer"),
        ),
        m(
            "lowlevel-pruned-param-still-read",
            "a removed parameter the handler still reads",
            LowLevel,
            "O7",
            &["forecast"],
            vec![(
                "                    \"days\": {\"type\": \"integer\", \"description\": \"How many days\", \"minimum\": 1, \"maximum\": 7},\n",
                "",
            )],
            Refused("still changes the answer"),
        ),
        m(
            "lowlevel-removal-still-answers",
            "a removed tool that still answers",
            LowLevel,
            "O3",
            &["echo"],
            vec![(
                "        types.Tool(\n            name=\"echo\",\n            description=\"Repeat a text\",\n            inputSchema={\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}}, \"required\": [\"text\"]},\n        ),\n",
                "",
            )],
            Refused("still answers"),
        ),
        m(
            "lowlevel-default-not-honoured",
            "a default declared that the handler does not use",
            LowLevel,
            "O6",
            &["forecast"],
            vec![(
                "\"description\": \"How many days\", \"minimum\": 1,",
                "\"description\": \"How many days\", \"default\": 3, \"minimum\": 1,",
            )],
            Refused("default 3"),
        ),
        m(
            "lowlevel-control-description",
            "honest: a description updated",
            LowLevel,
            "O9",
            &["forecast"],
            vec![LL_DESC],
            Proven,
        ),
        // Answers that vary from call to call, dates close to now, long numbers.
        m(
            "json-random-answer-broken",
            "an answer compared by its status only proves nothing",
            Json,
            "O9",
            &["nonce"],
            vec![
                (
                    "description: \"A fresh random token\"",
                    "description: \"A fresh random token, 32 hex digits\"",
                ),
                (
                    "      return text(randomBytes(16).toString(\"hex\"));",
                    "      return text(\"0\".repeat(8));",
                ),
            ],
            Unproven("only their status"),
        ),
        Mutant {
            added: &["nonce_copy"],
            effects: vec![variant("nonce_copy", "nonce")],
            ..m(
                "json-copy-of-random-constant",
                "a claimed copy checked on its status and form only",
                Json,
                "O1",
                &[],
                vec![
                    (
                        "    {\n      name: \"release_date\",",
                        "    {\n      name: \"nonce_copy\",\n      description: \"Another fresh random token\",\n      inputSchema: { type: \"object\", properties: {} },\n    },\n    {\n      name: \"release_date\",",
                    ),
                    (
                        "    case \"release_date\":",
                        "    case \"nonce_copy\":\n      return text(\"abc\");\n    case \"release_date\":",
                    ),
                ],
                Unproven("only their status"),
            )
        },
        m(
            "json-date-near-now",
            "another tool's answer changed in a date close to now",
            Json,
            "O9",
            &["forecast"],
            vec![
                JS_DESC,
                (
                    "      return text(`Released ${released}`);",
                    "      return text(`Released ${released.replace(\"T00\", \"T06\")}`);",
                ),
            ],
            Refused("release_date"),
        ),
        Mutant {
            added: &["account_copy"],
            effects: vec![variant("account_copy", "account")],
            ..m(
                "json-copy-differs-in-a-long-number",
                "a claimed copy whose answer differs in a 10-digit number",
                Json,
                "O1",
                &[],
                vec![
                    (
                        "    {\n      name: \"account\",",
                        "    {\n      name: \"account_copy\",\n      description: \"The account this server bills to\",\n      inputSchema: { type: \"object\", properties: {} },\n    },\n    {\n      name: \"account\",",
                    ),
                    (
                        "    case \"account\":",
                        "    case \"account_copy\":\n      return text(\"account 1787654321\");\n    case \"account\":",
                    ),
                ],
                Refused("account_copy"),
            )
        },
        // The model path: what the model's own cases may prove.
        Mutant {
            cases: Some(
                r#"[{"tool": "forecast", "arguments": {"city": "paris", "units": "F"}, "expect": "success", "contains": "57 F"}]"#,
            ),
            ..m(
                "model-case-proves-another-parameter",
                "a passed model case proves every change on its tool",
                Json,
                "O5",
                &["forecast"],
                vec![
                    (
                        "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },",
                        "          days: { type: \"integer\", description: \"How many days\", minimum: 1, maximum: 7 },\n          units: { type: \"string\", enum: [\"C\", \"F\"], description: \"The units of the temperature.\" },\n          style: { type: \"string\", enum: [\"short\", \"long\"], description: \"How much the forecast says.\" },",
                    ),
                    JSON_CONVERT,
                ],
                Unproven("no value of `style` changed the answer"),
            )
        },
        Mutant {
            cases: Some(
                r#"[{"tool": "forecast", "arguments": {"city": "paris", "units": "F"}, "expect": "success", "contains": "Forecast"}]"#,
            ),
            ..m(
                "model-case-passes-on-the-previous-version",
                "a model case that passes on the previous version too",
                Json,
                "O5",
                &["forecast"],
                vec![JSON_UNITS],
                Unproven("no value of `units` changed the answer"),
            )
        },
        Mutant {
            // It fails for want of a city, at both versions: not for the bound.
            cases: Some(r#"[{"tool": "forecast", "arguments": {"days": 5}, "expect": "error"}]"#),
            ..m(
                "model-error-case-any-failure",
                "a model case expecting an error passes on any failure",
                Json,
                "O6",
                &["forecast"],
                vec![("minimum: 1, maximum: 7 },", "minimum: 1, maximum: 3 },")],
                Unproven("not enforced"),
            )
        },
        Mutant {
            added: &["random_nonce"],
            cases: Some(r#"[{"tool": "nonce", "arguments": {}, "expect": "error"}]"#),
            ..m(
                "model-old-name-error-proves-rename",
                "a model case on a renamed tool's old name proves the rename",
                Json,
                "O2",
                &["nonce"],
                vec![
                    ("      name: \"nonce\",", "      name: \"random_nonce\","),
                    ("    case \"nonce\":", "    case \"random_nonce\":"),
                ],
                Unproven("only their status"),
            )
        },
        Mutant {
            cases: Some(
                r#"[{"tool": "forecast", "arguments": {"city": "paris", "units": "F"}, "expect": "success", "contains": "57 F"}]"#,
            ),
            ..m(
                "model-failed-case-recast",
                "a model case failing alike on both versions recast as a wrong expectation",
                Json,
                "O5",
                &["forecast"],
                vec![JSON_UNITS],
                Unproven("no value of `units` changed the answer"),
            )
        },
        Mutant {
            cases: Some(
                r#"[{"tool": "forecast", "arguments": {"city": "paris", "units": "F"}, "expect": "success", "contains": "57 F"}]"#,
            ),
            ..m(
                "model-control-param",
                "honest: a parameter that converts the temperature, with the model's case",
                Json,
                "O5",
                &["forecast"],
                vec![JSON_UNITS, JSON_CONVERT],
                Proven,
            )
        },
    ];
    out.sort_by_key(|m| (m.style.fixture(), m.name));
    out
}
