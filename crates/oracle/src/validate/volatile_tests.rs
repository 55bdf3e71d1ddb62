use super::*;

#[test]
fn what_varied_between_two_samples_is_a_hole_and_everything_else_is_compared_exactly() {
    let a = "run 3f2a1b4c-1d2e-4f50-8a9b-0c1d2e3f4a5b took 12ms; build abcdefghijklmnopqrstuvwxyz";
    let b = "run 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b took 12ms; build abcdefghijklmnopqrstuvwxyz";
    let v = Volatile::learn(a, b);
    assert_eq!(v.normalize(a), v.normalize(b));
    assert_eq!(v.normalize(a), v.reference());
    // The id's separators did not vary: they are compared too.
    assert!(
        v.normalize(a)
            .starts_with("run <~>-<~>-<~>-<~>-<~> took 12ms"),
        "{}",
        v.normalize(a)
    );
    // A duration that read the same in both samples is a value like any other.
    assert_ne!(v.normalize(a), v.normalize(&a.replace("12ms", "90ms")));
    assert_ne!(v.normalize(a), v.normalize(&a.replace("xyz", "xyq")));
}

#[test]
fn a_number_in_another_sentence_that_did_not_vary_is_never_masked() {
    let a = "Cleanup runs every 300 seconds.";
    let v = Volatile::learn(a, a);
    assert!(v.is_empty());
    assert_ne!(
        v.normalize(a),
        v.normalize("Cleanup runs every 900 seconds.")
    );
}

#[test]
fn a_hole_takes_only_values_like_those_seen_in_it() {
    let v = Volatile::learn("count: 5 items", "count: 7 items");
    assert_eq!(v.normalize("count: 12 items"), v.reference());
    assert_ne!(v.normalize("count: ERROR items"), v.reference());
    assert_ne!(v.normalize("count: 5 things"), v.reference());
    let long = "count: ".to_string() + &"9".repeat(40) + " items";
    assert_ne!(
        v.normalize(&long),
        v.reference(),
        "far longer than any value seen"
    );
}

#[test]
fn the_clock_never_enters_a_timestamp_is_learned_from_a_later_sample() {
    let first = "generated at 2026-12-05T10:00:01Z for Paris";
    // Both samples in the same second: nothing varied, the timestamp is compared as it is.
    let v = Volatile::learn(first, first);
    let later = "generated at 2026-12-05T10:03:44Z for Paris";
    assert_ne!(v.normalize(later), v.reference());
    // A later sample of the same version shows what varies, and only that.
    let v = v.widen(later);
    assert_eq!(
        v.normalize("generated at 2026-12-05T10:09:12Z for Paris"),
        v.reference()
    );
    assert_ne!(
        v.normalize("generated at 2026-12-05T10:09:12Z for Lyon"),
        v.reference()
    );
}

#[test]
fn a_value_absent_in_one_sample_is_a_hole_of_no_width() {
    let v = Volatile::learn("[a, b]", "[a, b, c]");
    assert_eq!(v.normalize("[a, b, d]"), v.reference());
    assert_eq!(v.normalize("[a, b]"), v.reference());
    assert_ne!(v.normalize("[a]"), v.reference());
}

#[test]
fn an_answer_made_of_random_values_is_mostly_holes_and_one_with_a_varying_id_is_not() {
    let v = Volatile::learn("Xk29fPq8ZmL4tR7wN1vB", "bQ83nZ0pLw5yTr2Kx9Md");
    assert!(v.hole_share() > 0.9, "{}", v.hole_share());
    let v = Volatile::learn(
        r#"{"id": "a1", "name": "Paris", "population": 2100000}"#,
        r#"{"id": "b7", "name": "Paris", "population": 2100000}"#,
    );
    assert!(v.hole_share() < 0.1, "{}", v.hole_share());
}

#[test]
fn the_masks_are_data_a_verdict_can_be_recomputed_from() {
    let v = Volatile::learn("at 10:00:01 ok", "at 10:00:02 ok");
    let json = serde_json::to_string(&v).unwrap();
    let back: Volatile = serde_json::from_str(&json).unwrap();
    assert_eq!(back, v);
    assert_eq!(
        back.normalize("at 10:00:09 ok"),
        v.normalize("at 10:00:09 ok")
    );
    assert_eq!(Volatile::default().normalize("x  \r\ny "), "x\ny");
}

#[test]
fn a_long_answer_that_differs_everywhere_is_learned_as_holes_and_later_values_fit_them() {
    // Readings that differ in every value and in their number of digits: the alignment runs
    // into its deadline and settles for wide holes. A third sample with other readings must
    // still normalise to the reference, and text of another kind in their place must not.
    let listing = |seed: u64| {
        let mut x = seed;
        let mut out = String::from("{\"hourly\":[");
        for _ in 0..6_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (x >> 33) % 100_000;
            out.push_str(&format!("{}.{},", v / 1000, v % (1 + (x >> 60))));
        }
        out + "]}"
    };
    let v = Volatile::learn(&listing(1), &listing(2));
    assert!(v.hole_share() > 0.5, "{}", v.hole_share());
    assert_eq!(v.normalize(&listing(3)), v.reference());
    assert_ne!(
        v.normalize(&listing(3).replace("\"hourly\"", "\"error\"")),
        v.reference()
    );
}
