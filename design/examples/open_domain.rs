//! privlift's side of the open-domain comparison with pure-LDP (`benches/open-domain/`):
//! one document designed as `privlift design` does, n users drawn from a Zipf population
//! over `words` decimal strings, each perturbed by the verified client, then the curator's
//! estimate of every word (or its heavy hitters), timed. Prints one JSON object.
//!
//! ```text
//! cargo run -p privlift-design --release --example open_domain -- \
//!   --kind olh --epsilon 2 --n 1000000 [--words 10000] [--zipf 1.1] [--seed 1] [--id ID] [--top 10,20] [--reps 1]
//!   [--candidates 0,1,17,…]
//! ```
//!
//! `--candidates` estimates only the words of these ranks (0-based) instead of every word.

use std::time::Instant;

use privlift::open::OpenMechanism;
use privlift::rng::DeterministicRngForTesting;
use privlift::Policy;
use privlift_design::open::designer::{design_open, OpenRequest};
use privlift_design::open::estimate::frequencies;
use privlift_design::open::pem::heavy_hitters;
use privlift_design::open::{parse_report, Report};
use rand::RngCore;
use serde_json::{json, Value};

/// Bytes of the longest word, "9999".
const MAX_BYTES: usize = 4;

fn arg<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

/// Zipf(s) over `d` ranks as a cumulative table; word i (rank i + 1) is `i.to_string()`.
fn zipf_cdf(d: usize, s: f64) -> Vec<f64> {
    let w: Vec<f64> = (1..=d).map(|r| (r as f64).powf(-s)).collect();
    let total: f64 = w.iter().sum();
    w.iter()
        .scan(0.0, |acc, x| {
            *acc += x / total;
            Some(*acc)
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = arg(&args, "--kind").unwrap_or("olh").to_string();
    let epsilon: f64 = arg(&args, "--epsilon").unwrap_or("2").parse().expect("--epsilon");
    let eps = privlift::param::Epsilon::positive("epsilon", epsilon).expect("--epsilon in (0, 700]");
    let n: usize = arg(&args, "--n").unwrap_or("100000").parse().expect("--n");
    let words: usize = arg(&args, "--words").unwrap_or("10000").parse().expect("--words");
    let s: f64 = arg(&args, "--zipf").unwrap_or("1.1").parse().expect("--zipf");
    let seed: u64 = arg(&args, "--seed").unwrap_or("1").parse().expect("--seed");
    let tops: Vec<usize> =
        arg(&args, "--top").unwrap_or("10,20").split(',').map(|t| t.parse().expect("--top")).collect();
    let id = arg(&args, "--id").map(str::to_string);
    let reps: usize = arg(&args, "--reps").unwrap_or("1").parse().expect("--reps");

    let designed =
        design_open(&OpenRequest { method: kind.clone(), epsilon: eps, max_bytes: Some(MAX_BYTES), prior: None, id })
            .expect("design");
    let p = designed.mechanism().clone();
    let verified = designed.verify(&Policy::default()).expect("verifies");
    let doc: Value = serde_json::from_str(&designed.to_json()).expect("the designed document is JSON");

    // The population and the clients: one seeded stream draws the values, the client its words.
    let cdf = zipf_cdf(words, s);
    let labels: Vec<String> = (0..words).map(|i| i.to_string()).collect();
    let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
    let mut truth = vec![0u64; words];
    let t0 = Instant::now();
    let reports: Vec<Report> = (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let i = cdf.partition_point(|&c| c <= u).min(words - 1);
            truth[i] += 1;
            let r = verified.perturb(&labels[i], &mut rng).expect("perturb");
            parse_report(&p, &r.canonical()).expect("a valid report")
        })
        .collect();
    let perturb_seconds = t0.elapsed().as_secs_f64();
    let mut out = json!({
        "kind": kind, "epsilon": epsilon, "n": n, "document": doc, "truth": truth,
        "perturb_seconds": perturb_seconds,
    });
    if kind == "heavy-hitters" {
        for top in tops {
            let t = Instant::now();
            let hh = heavy_hitters(&p, designed.max_bytes(), &reports, top).expect("heavy hitters");
            out[format!("top{top}")] = json!({"values": hh.values, "estimate": hh.estimate, "std_error": hh.std_error,
                "seconds": t.elapsed().as_secs_f64()});
        }
    } else {
        let labels: Vec<String> = match arg(&args, "--candidates") {
            Some(list) => list.split(',').map(|i| labels[i.parse::<usize>().expect("--candidates")].clone()).collect(),
            None => labels,
        };
        let candidates: Vec<&[u8]> = labels.iter().map(|l| l.as_bytes()).collect();
        // Best of `reps`: the estimate of every word from the n reports.
        let mut best = f64::INFINITY;
        let mut f = None;
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            f = Some(frequencies(&p, &reports, &candidates).expect("estimate"));
            best = best.min(t.elapsed().as_secs_f64());
        }
        let f = f.unwrap();
        out["labels"] = json!(labels);
        out["estimate"] = json!(f.estimate);
        out["std_error"] = json!(f.std_error);
        out["method"] = json!(f.method);
        out["estimate_seconds"] = json!(best);
        if let OpenMechanism::Olh { .. } = p {
            // The first reports as pure-LDP's LHServer takes them, (y, seed), for its timing.
            let first: Vec<(u32, u32)> = reports
                .iter()
                .take(2000)
                .map(|r| match *r {
                    Report::Olh { seed, y } => (y, seed),
                    _ => unreachable!(),
                })
                .collect();
            out["first_reports"] = json!(first);
        }
    }
    println!("{out}");
}
