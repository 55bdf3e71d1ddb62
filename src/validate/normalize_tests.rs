use super::*;

#[test]
fn timestamps_uuids_temp_paths_and_durations_become_placeholders() {
    let a = normalize(
        "created 2026-12-01T10:00:03.123Z id 3f2a1b4c-1d2e-4f50-8a9b-0c1d2e3f4a5b in /tmp/.tmpAbC123/x.json took 12ms",
    );
    let b = normalize(
        "created 2026-12-01T10:07:59.001Z id 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b in /tmp/.tmpZz9/x.json took 3ms",
    );
    assert_eq!(a, b);
    assert_eq!(a, "created <time> id <uuid> in <tmp> took <duration>");
}

#[test]
fn ordinary_words_and_small_numbers_are_kept() {
    let text = "Paris: 14 degrees, wind 20 km/h, 3 items";
    assert_eq!(normalize(text), text);
    assert_ne!(normalize("count 3"), normalize("count 4"));
}

#[test]
fn epoch_times_and_long_hex_ids_become_placeholders() {
    assert_eq!(
        normalize("at 1764583200123 sha deadbeefdeadbeef1234"),
        "at <epoch> sha <hex>"
    );
}

#[test]
fn what_varied_between_two_answers_is_replaced_and_the_rest_kept() {
    let a = "run 3f2a1b4c-1d2e-4f50-8a9b-0c1d2e3f4a5b took 12ms; build abcdefghijklmnopqrstuvwxyz";
    let b = "run 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b took 12ms; build abcdefghijklmnopqrstuvwxyz";
    let v = Volatile::learn(a, b);
    assert_eq!(v.normalize(a), v.normalize(b));
    assert_eq!(
        v.normalize(a),
        "run <uuid> took <duration>; build abcdefghijklmnopqrstuvwxyz"
    );
    // A duration is a reading of the clock even where both answers agree ("up 1s").
    assert_eq!(v.normalize(a), v.normalize(&a.replace("12ms", "90ms")));
    // A long id or a 10-digit count that did not vary is compared as it is.
    assert_ne!(v.normalize(a), v.normalize(&a.replace("xyz", "xyq")));
    let rows = Volatile::learn("rows 1700000000", "rows 1700000000");
    assert_ne!(
        rows.normalize("rows 1700000000"),
        rows.normalize("rows 1700000001")
    );
}

#[test]
fn clock_readings_close_to_now_are_replaced_even_when_both_answers_agree() {
    let now = now_secs() as i64;
    let today = (chrono::DateTime::from_timestamp(now, 0).unwrap())
        .format("%Y-%m-%dT08:15:00Z")
        .to_string();
    let v = Volatile::learn(&today, &today);
    assert_eq!(v.normalize(&today), "<time>");
    // A fixed date far from now is a value like any other.
    let fixed = "released 2001-05-04T10:00:00Z";
    let v = Volatile::learn(fixed, fixed);
    assert_eq!(v.normalize(fixed), fixed);
    assert_ne!(
        v.normalize(fixed),
        v.normalize("released 2001-05-05T10:00:00Z")
    );
    // An epoch in seconds of now.
    let epoch = format!("at {now}");
    assert_eq!(
        Volatile::learn(&epoch, &epoch).normalize(&epoch),
        "at <epoch>"
    );
}
