//! Integration tests of `privlift gaussian`, `privlift laplace lip` and `privlift
//! sampling`: each prints one JSON object whose numbers equal the library's, and every
//! malformed call fails with a named code.
//! Run with `cargo test -p privlift-cli --test cli_continuous`.

use privlift::param::Epsilon;
use privlift_design::continuous as real;
// The continuous module, its calculators over plain numbers validated as a caller does.
#[path = "../../design/src/continuous/shims.rs"]
mod cont;
use serde_json::Value;

mod common;
use common::cli::{run, TempDir};

/// serde_json's default float parsing may be one ulp off the printed shortest form.
fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 4.0 * f64::EPSILON * b.abs(), "{a} vs {b}");
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn gaussian_delta_and_sigma_match_the_library() {
    let v =
        run(&["gaussian", "delta", "--epsilon", "1", "--sigma-n", "10", "--x", "5", "--mean", "0", "--sd", "5"]).json();
    assert_eq!(keys(&v), ["delta", "e_y_given_x_vs_y", "e_y_vs_y_given_x"]);
    let d = cont::delta_at(1.0, 10.0, 5.0, &cont::Gaussian::new(0.0, 5.0).unwrap()).unwrap();
    close(v["delta"].as_f64().unwrap(), d.delta);
    close(v["e_y_given_x_vs_y"].as_f64().unwrap(), d.e_y_given_x_vs_y);
    close(v["e_y_vs_y_given_x"].as_f64().unwrap(), d.e_y_vs_y_given_x);

    let v =
        run(&["gaussian", "sigma", "--epsilon=1", "--delta", "1e-4", "--x", "5", "--mean", "0", "--sd", "5"]).json();
    assert_eq!(keys(&v), ["sigma_n"]);
    let s = v["sigma_n"].as_f64().unwrap();
    assert!(cont::delta_at(1.0, s, 5.0, &cont::Gaussian::new(0.0, 5.0).unwrap()).unwrap().delta <= 1e-4);
    let s0 = run(&["gaussian", "sigma", "--epsilon", "1", "--delta", "1e-4", "--x", "0", "--mean", "0", "--sd", "5"])
        .json()["sigma_n"]
        .as_f64()
        .unwrap();
    assert!(s0 < s, "Fig. 9: less noise at the mode");
}

#[test]
fn gaussian_analytic_and_e_divergence() {
    let v = run(&["gaussian", "analytic", "--epsilon", "1", "--sigma", "10", "--sensitivity", "20"]).json();
    assert_eq!(keys(&v), ["delta", "vanilla_bound"]);
    close(v["delta"].as_f64().unwrap(), cont::analytic_gaussian_delta(1.0, 10.0, 20.0).unwrap());
    close(v["vanilla_bound"].as_f64().unwrap(), cont::vanilla_gaussian_delta(1.0, 10.0, 20.0).unwrap());

    let v =
        run(&["gaussian", "e-divergence", "--gamma", "2", "--mean1", "0", "--sd1", "1", "--mean2", "1", "--sd2", "2"])
            .json();
    assert_eq!(keys(&v), ["e"]);
    let (f, g) = (cont::Gaussian::new(0.0, 1.0).unwrap(), cont::Gaussian::new(1.0, 2.0).unwrap());
    close(v["e"].as_f64().unwrap(), cont::e_divergence(2.0, &f, &g).unwrap());
}

#[test]
fn laplace_lip_and_sampling() {
    let t = TempDir::new("cli-continuous");
    let p = t.write("p.json", r#"{"labels": ["0", "1", "2.5"], "p": [0.2, 0.3, 0.5]}"#);
    let v = run(&["laplace", "lip", "--prior", &p, "--epsilon", "1"]).json();
    assert_eq!(keys(&v), ["b_ldp", "b_lip", "lip"]);
    let s =
        cont::laplace_scales(&[0.0, 1.0, 2.5], &[0.2, 0.3, 0.5], Epsilon::positive("epsilon", 1.0).unwrap()).unwrap();
    close(v["b_ldp"].as_f64().unwrap(), s.b_ldp);
    close(v["b_lip"].as_f64().unwrap(), s.b_lip);
    let lip = v["lip"].as_f64().unwrap();
    assert!(lip <= 1.0 && lip > 0.5, "{lip}");

    let bad = t.write("bad.json", r#"{"labels": ["a", "1"], "p": [0.5, 0.5]}"#);
    run(&["laplace", "lip", "--prior", &bad, "--epsilon", "1"]).fails("invalid_argument", 1);
    // ε above 700 nats is refused, as by every designer (`Epsilon::positive`).
    run(&["laplace", "lip", "--prior", &p, "--epsilon", "800"]).fails("invalid_argument", 1);
    let dup = t.write("dup.json", r#"{"labels": ["1", "1.0"], "p": [0.5, 0.5]}"#);
    run(&["laplace", "lip", "--prior", &dup, "--epsilon", "1"]).fails("duplicate_label", 1);
    run(&["laplace", "lip", "--prior", "/nonexistent/p.json", "--epsilon", "1"]).fails("io", 1);
    run(&["laplace", "nope"]).fails("invalid_argument", 2);

    let v = run(&["sampling", "--epsilon", "1", "--delta", "0.01"]).json();
    assert_eq!(keys(&v), ["lambda"]);
    close(v["lambda"].as_f64().unwrap(), cont::sampling_lambda(1.0, 0.01).unwrap());
}

#[test]
fn bad_calls_fail_with_codes() {
    run(&["gaussian"]).fails("invalid_argument", 2);
    run(&["gaussian", "wat"]).fails("invalid_argument", 2);
    run(&["gaussian", "delta", "--epsilon", "1"]).fails("invalid_argument", 2);
    run(&["gaussian", "delta", "--epsilon", "x", "--sigma-n", "1", "--x", "0", "--mean", "0", "--sd", "1"])
        .fails("invalid_argument", 2);
    run(&["gaussian", "delta", "--epsilon", "-1", "--sigma-n", "1", "--x", "0", "--mean", "0", "--sd", "1"])
        .fails("invalid_argument", 1);
    run(&["gaussian", "delta", "--epsilon", "1", "--sigma-n", "0", "--x", "0", "--mean", "0", "--sd", "1"])
        .fails("invalid_argument", 1);
    run(&["gaussian", "sigma", "--epsilon", "1", "--delta", "1", "--x", "0", "--mean", "0", "--sd", "1"])
        .fails("invalid_argument", 1);
    run(&["gaussian", "analytic", "--epsilon", "1", "--sigma", "1", "--sensitivity", "nan"])
        .fails("invalid_argument", 1);
    run(&["sampling", "--epsilon", "1", "--delta", "2"]).fails("invalid_argument", 1);
    run(&["sampling", "--epsilon", "1", "--delta", "0.1", "extra"]).fails("invalid_argument", 2);
    run(&["sampling", "--epsilon", "1", "--delta", "0.1", "--bogus", "1"]).fails("invalid_argument", 2);
    let help = run(&["gaussian", "--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("privlift gaussian e-divergence") && !help.stdout.contains("privlift sampling"));
    let help = run(&["sampling", "--help"]);
    assert!(
        help.stdout.contains("privlift sampling --epsilon E --delta D") && !help.stdout.contains("privlift gaussian")
    );
}
