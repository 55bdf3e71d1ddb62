//! How the comparison of answers with learned holes scales with the answer's length, in the
//! worst case: answers that differ everywhere. Their alignment grows with the square of the
//! length until its deadline (250 ms) cuts it short; what follows must stay linear, or a server
//! with big answers stalls its round (seen on a 2-core CI machine: each hole of one wide run
//! re-read the whole replacing value, and the suite ran past 90 minutes).
//!
//! Run: `cargo bench --bench volatile`. Prints the median of 5 timings per size and the ratio
//! to the smallest size; past the deadline the time should stay near 250 ms at any length.

use std::time::Instant;

use mcpevol::validate::Volatile;

/// A forecast-like answer of `n` readings drawn from `seed`: two seeds differ in every reading
/// and in how many digits each has, so the alignment is long and ends in one wide run.
fn listing(n: usize, seed: u64) -> String {
    let mut x = seed;
    let mut out = String::from("{\"hourly\":[");
    for _ in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = (x >> 33) % 100_000;
        out.push_str(&format!("{}.{},", v / 1000, v % (1 + (x >> 60))));
    }
    out.push_str("]}");
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    println!("{:>8} {:>12} {:>8}", "readings", "median ms", "ratio");
    let mut first = None;
    for n in [250, 1_000, 4_000, 16_000] {
        let learned = Volatile::learn(&listing(n, 1), &listing(n, 2));
        let later = listing(n, 3);
        let times: Vec<f64> = (0..5)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(learned.normalize(&later));
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        let ms = median(times);
        let base = *first.get_or_insert(ms);
        println!("{n:>8} {ms:>12.2} {:>8.1}", ms / base);
    }
}
