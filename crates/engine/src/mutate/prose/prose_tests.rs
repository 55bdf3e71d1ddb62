//! The writer's sentences: taken from facts only, in several wordings, never the formulas.

use serde_json::json;

use super::*;
use mcpevol_core::inventory::ParamShape;
use mcpevol_oracle::describe_check;

fn param(name: &str, ty: &str, required: bool, shape: ParamShape) -> ParamFacts {
    ParamFacts {
        name: name.into(),
        ty: Some(ty.into()),
        required,
        description: None,
        shape,
    }
}

fn forecast() -> ToolFacts {
    ToolFacts {
        name: "get_forecast".into(),
        description: "Get today's forecast for a city.".into(),
        params: vec![
            param("city", "string", true, ParamShape::default()),
            param(
                "days",
                "integer",
                false,
                ParamShape {
                    min: Some("1".into()),
                    max: Some("7".into()),
                    default: Some("3".into()),
                    integer: true,
                    ..ParamShape::default()
                },
            ),
            param(
                "units",
                "string",
                false,
                ParamShape {
                    values: vec!["metric".into(), "imperial".into()],
                    ..ParamShape::default()
                },
            ),
        ],
        returns: Returns {
            json: Some(vec!["city".into(), "high".into(), "low".into()]),
            ..Returns::default()
        },
        related: vec![Related {
            name: "get_alerts".into(),
            summary: "Weather alerts for a city".into(),
        }],
    }
}

fn sentences(facts: &ToolFacts, seed: u64, most: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    Writer::new(&mut rng).tool_facts(facts, most)
}

#[test]
fn tool_sentences_state_the_result_and_related_tools_but_never_list_the_schema_back() {
    let all: Vec<String> = (0..40)
        .flat_map(|seed| sentences(&forecast(), seed, 3))
        .collect();
    let text = all.join(" ");
    for fact in ["`high`", "JSON", "`get_alerts`"] {
        assert!(text.contains(fact), "no sentence says {fact}: {all:#?}");
    }
    // A schema read back ("Required: `city`. Optional: `days` (1 to 7, default 3).") is a
    // template no maintainer writes, and clients read the schema itself.
    for listing in ["`days`", "1 to 7", "default `3`", "Required:", "Optional:"] {
        assert!(
            !text.contains(listing),
            "a sentence says {listing}: {all:#?}"
        );
    }
    let distinct: std::collections::BTreeSet<&String> = all.iter().collect();
    assert!(distinct.len() >= 4, "too few wordings: {distinct:#?}");
}

#[test]
fn what_the_description_already_says_is_not_said_again() {
    let mut facts = forecast();
    facts.description = "Get a forecast as JSON. `city`: a city name; `days` (1 to 7, default 3); `units` is `metric` or `imperial`. See `get_alerts` too.".into();
    for seed in 0..20 {
        assert_eq!(
            sentences(&facts, seed, 3),
            Vec::<String>::new(),
            "seed {seed}"
        );
    }
}

#[test]
fn parameter_sentences_come_from_its_schema_and_nothing_else() {
    let mut rng = Rng::new(3);
    let mut w = Writer::new(&mut rng);
    let days = &forecast().params[1];
    let said = w.param_facts(days).join(" ");
    assert!(said.contains('3') || said.contains('1'), "{said}");
    let mut bare = param("city", "string", true, ParamShape::default());
    assert_eq!(
        w.param_facts(&bare),
        Vec::<String>::new(),
        "nothing known, nothing said"
    );
    bare.description = Some("The city".into());
    assert!(["Required.", "It must be given."].contains(&w.param_facts(&bare)[0].as_str()));
}

#[test]
fn a_parameter_whose_description_says_it_is_required_is_not_told_so_again() {
    let mut rng = Rng::new(3);
    let mut w = Writer::new(&mut rng);
    for said in [
        "The city. It must be given.",
        "The city. Required.",
        "The city (optional)",
    ] {
        let mut p = param("city", "string", true, ParamShape::default());
        p.description = Some(said.into());
        assert_eq!(w.param_facts(&p), Vec::<String>::new(), "{said}");
    }
}

/// Every sentence the writer makes, added to a description, passes the description check.
#[test]
fn every_wording_passes_the_description_check() {
    let facts = forecast();
    let before = vec![
        json!({ "name": "get_forecast", "description": facts.description, "inputSchema": { "type": "object", "properties": { "city": { "type": "string", "description": "City" } } } }),
    ];
    for seed in 0..60 {
        let mut rng = Rng::new(seed);
        let mut w = Writer::new(&mut rng);
        let mut said = w.tool_facts(&facts, 2);
        said.push(w.note(&Note::Pointer {
            to: "get_forecast_alias",
        }));
        said.push(w.note(&Note::Formerly { old: "forecast" }));
        said.push(w.note(&Note::RemovedParam("units")));
        let kinds = super::super::behaviours::PARAM_KINDS;
        let new_param = super::super::behaviours::NewParam::new(&kinds[seed as usize % 2], "limit");
        said.push(w.note(&Note::NewParam(&new_param)));
        let new = attach::append(&facts.description, &said);
        let mut after = before.clone();
        after[0]["description"] = json!(new);
        let bound = w.bound(super::super::behaviours::Bound::MaxLength(500));
        after[0]["inputSchema"]["properties"]["city"]["description"] =
            json!(attach::append("City", &[bound]));
        let listed = mcpevol_core::listed::listed;
        let (before, after) = (listed(before.clone()), listed(after));
        let changes = mcpevol_core::schema::diff(&before, &after);
        let judged = describe_check::check(&before, &after, &changes, None);
        assert_eq!(judged, Ok(()), "seed {seed}: {new}");
    }
}

/// A list of some of the parameters never reads as the whole list.
#[test]
fn a_partial_parameter_list_is_not_worded_as_the_whole() {
    let mut facts = forecast();
    facts.description =
        "Get today's forecast for a `city`, in `units` (`metric` or `imperial`).".into();
    facts.returns = Returns::default();
    facts.related.clear();
    for seed in 0..30 {
        for s in sentences(&facts, seed, 1) {
            assert!(
                !s.starts_with("It takes")
                    && !s.starts_with("All its")
                    && !s.starts_with("Parameters:"),
                "{s}"
            );
            assert!(s.contains("`days`") && !s.contains("`city`"), "{s}");
        }
    }
}

#[test]
fn a_required_new_parameter_is_never_described_as_one_that_may_be_left_out() {
    for kind in crate::mutate::behaviours::PARAM_KINDS {
        let p = &crate::mutate::behaviours::NewParam::new(kind, "limit");
        for seed in 0..12 {
            let optional =
                Writer::new(&mut Rng::new(seed)).new_param_description(p, Presence::Optional);
            let required =
                Writer::new(&mut Rng::new(seed)).new_param_description(p, Presence::Required);
            assert!(
                optional.contains("Leave it out") || optional.contains("Without it"),
                "{optional}"
            );
            assert!(
                !required.contains("Leave it out") && !required.contains("Without it"),
                "{required}"
            );
            assert!(
                required.ends_with('.') && optional.starts_with(&required),
                "{required}"
            );
        }
    }
}

#[test]
fn a_description_that_already_says_the_parameter_may_be_left_out_is_not_told_so_again() {
    let with = |said: &str| {
        let mut p = param("format", "string", false, ParamShape::default());
        p.description = Some(said.into());
        Writer::new(&mut Rng::new(1)).param_facts(&p)
    };
    assert!(with("Leave it out to keep the layout as it is.").is_empty());
    assert!(with("Without it, every key is returned.").is_empty());
    assert!(with("An optional filter.").is_empty());
    // Saying nothing of it, it is told.
    assert_eq!(with("How the JSON is laid out.").len(), 1);
}
