//! Tests of release planning: drawn sizes and classes, recipe choice against the target mix,
//! P18 pairing and the composite chance.

use super::*;

#[test]
fn drawn_releases_follow_the_shipped_shape() {
    let mix = Mix::shipped();
    let none = BTreeMap::new();
    let mut rng = Rng::new(7);
    let mut sizes: Vec<usize> = (0..2000)
        .map(|_| {
            draw_classes(
                &mix,
                &mut rng,
                50,
                (
                    tool_chance(&mix, &Tally::default(), NewTools::Fit),
                    mix.composite,
                ),
                0,
                &none,
            )
            .len()
        })
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes[sizes.len() / 2], 4);
    let more = sizes.iter().filter(|n| **n > 1).count() as f64 / sizes.len() as f64;
    assert!((more - 0.79).abs() < 0.04, "{more}");
    assert!(draw_classes(&mix, &mut rng, 2, (0.2, mix.composite), 2, &none).len() <= 2);
}

#[test]
fn a_recipe_far_over_its_target_does_not_fill_a_slot_the_run_is_not_behind_on() {
    let mix = Mix::parse(
        "[patterns]\nP1 = 1\nP3 = 1\nP4 = 1\n",
        "t",
        Some(Mix::shipped()),
    )
    .unwrap();
    let o9 = *RECIPES.iter().find(|r| r.operators == ["O9"]).unwrap();
    let mut rng = Rng::new(3);
    // P1 is behind, but its one recipe failed for this tool: neither P3 nor P4 is behind.
    let draws = |rng: &mut Rng, p3: usize, p4: usize| -> Vec<&'static str> {
        let counts = Tally::of([(Label::p(3), p3), (Label::p(4), p4)].into());
        (0..40)
            .map(|_| {
                let r = choose(
                    &mix,
                    Class::Single,
                    &counts,
                    rng,
                    &[o9],
                    &|_| true,
                    Need::Spare,
                );
                r.unwrap().operators[0]
            })
            .collect()
    };
    // P4 at 20 of 31 events against a third: never drawn; P3 (11) fills the slot.
    assert!(draws(&mut rng, 11, 20).iter().all(|o| *o == "O10"));
    // A release with no change yet takes it rather than none.
    let counts = Tally::of([(Label::p(3), 11), (Label::p(4), 20)].into());
    let first: Vec<&str> = (0..40)
        .map(|_| {
            let r = choose(
                &mix,
                Class::Single,
                &counts,
                &mut rng,
                &[o9],
                &|_| true,
                Need::Wanted,
            );
            r.unwrap().operators[0]
        })
        .collect();
    assert!(first.contains(&"O5"), "{first:?}");
    // P4 at 10 of 20, within half again of its target: drawn as the target says.
    let both = draws(&mut rng, 10, 10);
    assert!(both.contains(&"O5") && both.contains(&"O10"), "{both:?}");
}

#[test]
fn the_slots_drawn_first_see_the_whole_release_so_one_addition_does_not_meet_p2() {
    let mix = Mix::shipped();
    // One addition so far, seven slots of the release ahead: P2 is still behind, and it is
    // drawn more often than the removal and the replacement together.
    let tally = Tally {
        counts: [(Label::p(2), 1)].into(),
        ahead: 7,
        ..Tally::default()
    };
    assert!(deficit(&mix, &tally, Label::p(2)) > 0.3);
    let mut rng = Rng::new(5);
    let drawn: Vec<Recipe> = (0..400)
        .filter_map(|_| {
            choose(
                &mix,
                Class::Tool,
                &tally,
                &mut rng,
                &[],
                &|_| true,
                Need::Wanted,
            )
        })
        .collect();
    let adds = drawn.iter().filter(|r| r.adds()).count();
    assert!(adds > 2 * (drawn.len() - adds), "{adds} of {}", drawn.len());
    // Without the slots ahead, P2 is met and the tool slot goes elsewhere.
    let now = Tally::of(tally.counts.clone());
    assert_eq!(deficit(&mix, &now, Label::p(2)), 0.0);
}

#[test]
fn a_run_short_of_composite_changes_draws_more_of_them() {
    let mix = Mix::shipped();
    let run = |changed, composite| Tally {
        changed,
        composite,
        ..Tally::default()
    };
    assert_eq!(composite_chance(&mix, &run(2, 0)), mix.composite);
    assert!(composite_chance(&mix, &run(20, 6)) > mix.composite + 0.15);
    assert!(composite_chance(&mix, &run(20, 16)) < mix.composite - 0.2);
    assert!(composite_chance(&mix, &run(20, 0)) <= 0.85);
    // A run a little short (45%) is moved by twice its shortfall.
    let near = composite_chance(&mix, &run(20, 9));
    assert!((near - (mix.composite + 2.0 * (mix.composite - 0.45))).abs() < 1e-9);
}

#[test]
fn a_recipe_of_two_patterns_waits_until_the_run_lacks_both() {
    let mix = Mix::parse(
        "[patterns]\nP1 = 1\nP6 = 1\nP8 = 1\n",
        "t",
        Some(Mix::shipped()),
    )
    .unwrap();
    // P6 and P8 are behind, P1 is not: a description and a new parameter (O8), never the
    // description and bound pair.
    let tally = Tally::of([(Label::p(1), 10), (Label::p(6), 2), (Label::p(8), 2)].into());
    let mut rng = Rng::new(2);
    for _ in 0..40 {
        let r = choose(
            &mix,
            Class::Composite,
            &tally,
            &mut rng,
            &[],
            &|_| true,
            Need::Spare,
        );
        assert_ne!(r.map(|r| r.operators), Some(&["O9", "O6"][..]));
    }
    // Both behind, P6 met: the pair.
    let lacking = Tally::of([(Label::p(1), 1), (Label::p(6), 9), (Label::p(8), 1)].into());
    let r = choose(
        &mix,
        Class::Composite,
        &lacking,
        &mut rng,
        &[],
        &|_| true,
        Need::Spare,
    );
    assert_eq!(r.map(|r| r.operators), Some(&["O9", "O6"][..]));
}

#[test]
fn releases_may_pair_an_addition_and_a_description_at_the_targets_rate_per_tool() {
    let mix = Mix::shipped();
    let mut rng = Rng::new(9);
    let behind = Tally::of([(Label::p(1), 30)].into());
    let allowed = (0..3000)
        .filter(|_| may_pair(&mix, &behind, &mut rng, 2))
        .count() as f64
        / 3000.0;
    let expected = mix.share(Label::p(18)) * 2.0 / PAIRED;
    assert!((allowed - expected).abs() < 0.03, "{allowed} {expected}");
    // A run at its share of P18 pairs no more.
    let met = Tally::of([(Label::p(1), 30), (Label::p(18), 2)].into());
    assert!((0..100).all(|_| !may_pair(&mix, &met, &mut rng, 8)));
}

#[test]
fn the_recipe_chosen_is_the_one_the_run_lacks() {
    let mix = Mix::parse("[patterns]\nP1 = 1\nP3 = 1\n", "t", Some(Mix::shipped())).unwrap();
    let counts = Tally::of([(Label::p(1), 10)].into());
    let mut rng = Rng::new(1);
    for _ in 0..20 {
        let r = choose(
            &mix,
            Class::Single,
            &counts,
            &mut rng,
            &[],
            &|_| true,
            Need::Spare,
        )
        .unwrap();
        assert_eq!(r.operators, ["O10"]);
    }
}

#[test]
fn a_run_whose_releases_touched_fewer_tools_than_planned_plans_more() {
    let run = |releases, short| Tally {
        releases,
        short,
        ..Tally::default()
    };
    assert_eq!(extra_tools(&run(0, 0)), 0);
    assert_eq!(extra_tools(&run(4, 0)), 0);
    assert_eq!(extra_tools(&run(4, 1)), 1);
    assert_eq!(extra_tools(&run(4, 4)), 1);
    assert_eq!(extra_tools(&run(4, 6)), 2);
    assert_eq!(extra_tools(&run(2, 30)), 2);
}

#[test]
fn the_extra_tools_go_to_releases_drawn_to_touch_more_than_one_and_leave_one_tool_ones_be() {
    let mix = Mix::shipped();
    let none = BTreeMap::new();
    let sizes = |extra| {
        // A generator per draw: the size is its first number, whatever the slots take after.
        (0..2000)
            .map(|i| {
                draw_classes(
                    &mix,
                    &mut Rng::new(i),
                    50,
                    (0.2, mix.composite),
                    extra,
                    &none,
                )
                .len()
            })
            .collect::<Vec<usize>>()
    };
    let (plain, more) = (sizes(0), sizes(1));
    let ones = |s: &[usize]| s.iter().filter(|n| **n == 1).count();
    assert!(ones(&plain) > 300, "{}", ones(&plain));
    assert_eq!(ones(&plain), ones(&more));
    assert!(!more.contains(&2));
    let twos = plain.iter().filter(|n| **n == 2).count();
    let threes = |s: &[usize]| s.iter().filter(|n| **n == 3).count();
    assert_eq!(threes(&more), twos);
}

#[test]
fn an_event_taken_back_for_a_dropped_change_is_counted_no_more_and_never_below_none() {
    let mut tally = Tally::default();
    tally.add(Label::p(2));
    tally.add(Label::p(2));
    tally.take(Label::p(2));
    assert_eq!(tally.counts.get(&Label::p(2)), Some(&1));
    tally.take(Label::p(17));
    tally.take(Label::p(2));
    tally.take(Label::p(2));
    assert_eq!(tally.counts.get(&Label::p(2)), Some(&0));
    assert_eq!(tally.counts.get(&Label::p(17)), None);
}

#[test]
fn a_tool_slot_where_no_copy_fits_takes_a_replacement_only_at_the_rate_the_run_lacks_one() {
    let mix = Mix::shipped();
    let o1 = *RECIPES.iter().find(|r| r.operators == ["O1"]).unwrap();
    let o4 = *RECIPES.iter().find(|r| r.operators == ["O4"]).unwrap();
    // Twenty events so far, five ahead: the run lacks about 0.65 of a replacement and 0.5 of a
    // removal, and no addition fits its tools.
    let tally = Tally {
        counts: [(Label::p(1), 12), (Label::p(3), 8)].into(),
        ahead: 4,
        ..Tally::default()
    };
    let lacks = deficit(&mix, &tally, Label::p(5)) + deficit(&mix, &tally, Label::p(17));
    let mut rng = Rng::new(9);
    let tries = 2000;
    let filled = (0..tries)
        .filter(|_| {
            choose(
                &mix,
                Class::Tool,
                &tally,
                &mut rng,
                &[o1, o4],
                &|_| true,
                Need::Spare,
            )
            .is_some()
        })
        .count() as f64
        / tries as f64;
    // Either pattern lacked opens the slot: about 1 - (1 - 0.65)(1 - 0.5), never always.
    let expected = 1.0
        - (1.0 - deficit(&mix, &tally, Label::p(5))) * (1.0 - deficit(&mix, &tally, Label::p(17)));
    assert!(
        lacks < 1.5 && (filled - expected).abs() < 0.05,
        "{filled} against {expected}"
    );
    // A run that has its replacement and its removal leaves the slot to a changed tool.
    let met = Tally {
        counts: [(Label::p(1), 12), (Label::p(5), 1), (Label::p(17), 1)].into(),
        ..Tally::default()
    };
    let mut tool_slot = |need| {
        choose(
            &mix,
            Class::Tool,
            &met,
            &mut rng,
            &[o1, o4],
            &|_| true,
            need,
        )
    };
    assert!((0..200).all(|_| tool_slot(Need::Spare).is_none()));
    // Unless the release would otherwise have no change at all.
    let only = tool_slot(Need::Only);
    assert!(only.is_some_and(|r| r.operators == ["O2"] || r.operators == ["O3"]));
}

#[test]
fn an_operator_applied_alone_counts_its_own_pattern() {
    assert_eq!(alone("O5"), [Label::p(4)]);
    assert_eq!(alone("O7"), [Label::p(11)]);
    assert_eq!(alone("O10"), [Label::p(3)]);
    // O6 alone is a bound, whatever else its recipes of one make.
    assert_eq!(alone("O6"), [Label::p(8)]);
    assert!(alone("X1").is_empty());
}

#[test]
fn a_run_whose_releases_touched_few_tools_draws_the_sizes_it_lacks() {
    let mix = Mix::shipped();
    let draws = |sizes: &BTreeMap<usize, usize>| -> Vec<usize> {
        (0..500)
            .map(|i| draw_classes(&mix, &mut Rng::new(i), 50, (0.2, mix.composite), 0, sizes).len())
            .collect()
    };
    // Two releases of one tool and one of two: a fourth of one or two tools would put the run
    // further past the target's share of them.
    let small = BTreeMap::from([(1, 2), (2, 1)]);
    assert!(draws(&small).iter().all(|n| *n >= 3));
    // Releases of nine tools count as the largest size the mix names (8).
    let big = BTreeMap::from([(9, 3)]);
    assert!(draws(&big).iter().all(|n| *n < 8));
    // A run of every size, a release each, has more large releases than the target: the
    // sizes it lacks by the end of a ninth are one to four tools.
    let even: BTreeMap<usize, usize> = (1..=8).map(|n| (n, 1)).collect();
    let drawn = draws(&even);
    assert!(drawn.contains(&1) && drawn.contains(&4), "{drawn:?}");
    assert!(drawn.iter().all(|n| *n <= 4), "{drawn:?}");
    // With no release yet, the target's weights (a fifth or so of one tool).
    let first = draws(&BTreeMap::new());
    let ones = first.iter().filter(|n| **n == 1).count();
    assert!((70..140).contains(&ones), "{ones}");
}

#[test]
fn a_run_short_of_added_tools_draws_more_tool_slots_and_one_past_its_share_fewer() {
    let mix = Mix::shipped();
    let run = |p2: usize, p1: usize| {
        let mut t = Tally::default();
        (0..p2).for_each(|_| t.add(Label::p(2)));
        (0..p1).for_each(|_| t.add(Label::p(1)));
        t
    };
    let base = tool_chance(&mix, &Tally::default(), NewTools::Fit);
    assert!(base > 0.15 && base < 0.35, "{base}");
    // Too few events to judge by.
    assert_eq!(tool_chance(&mix, &run(0, 3), NewTools::Fit), base);
    assert!(tool_chance(&mix, &run(0, 4), NewTools::Fit) > base + 0.1);
    assert!(tool_chance(&mix, &run(1, 19), NewTools::Fit) > base + 0.1);
    assert!(tool_chance(&mix, &run(10, 10), NewTools::Fit) < base);
    assert!(tool_chance(&mix, &run(0, 40), NewTools::Fit) <= 0.6);
    assert!(tool_chance(&mix, &run(40, 0), NewTools::Fit) >= 0.1);
}

#[test]
fn a_server_no_new_tool_fits_aims_only_at_removed_and_replaced_tools() {
    let mix = Mix::shipped();
    let run = |p5: usize, p1: usize| {
        let mut t = Tally::default();
        (0..p5).for_each(|_| t.add(Label::p(5)));
        (0..p1).for_each(|_| t.add(Label::p(1)));
        t
    };
    let none = tool_chance(&mix, &Tally::default(), NewTools::NoneFit);
    assert!(
        none < tool_chance(&mix, &Tally::default(), NewTools::Fit) / 2.0,
        "{none}"
    );
    assert!(none >= 0.02, "{none}");
    // No added tools in 20 events is no shortfall where none can be added; replaced tools
    // past their share draw fewer.
    assert!(tool_chance(&mix, &run(0, 20), NewTools::NoneFit) < 0.2);
    assert!(tool_chance(&mix, &run(0, 20), NewTools::Fit) >= 0.5);
    assert_eq!(tool_chance(&mix, &run(5, 15), NewTools::NoneFit), 0.02);
}
