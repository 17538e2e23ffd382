//! What every published document must be, on the requests that used to break it: BP-LIP
//! RR with priors that disagree on their support. Each request below is feasible (the
//! output that ignores X meets every budget), so each must give a document whose rows
//! are distributions and whose claims are finite and hold **exactly** (the audited
//! figure, rounded up, at most the claim). The reported requests are pinned as fixed
//! instances, each beside a seeded family of its kind.
#![allow(clippy::needless_range_loop)] // index loops mirror the maths

use privlift::document::{Alphabet, Document};
use privlift::Policy;
use privlift_design::rr;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::{assert_rows_stochastic, normalised};

/// Re-parses the published JSON, checks that every row of the mechanism is a
/// distribution and every claim against the library's audit with no tolerance,
/// and returns the re-parsed document.
fn claims_hold_exactly(doc: &Document, what: &str) -> Document {
    let doc = Document::from_json(&doc.to_json()).unwrap_or_else(|e| panic!("{what}: published JSON: {e}"));
    assert_rows_stochastic(&doc, what);
    let policy = Policy { max_verify_work: Some(f64::INFINITY), ..Policy::default() };
    let report = doc.check(&policy).unwrap();
    assert!(!report.claims.is_empty(), "{what}: no claim");
    for c in &report.claims {
        assert!(c.bound.is_finite(), "{what}: {} claimed as {}", c.notion, c.bound);
        assert!(c.actual <= c.bound, "{what}: {} audits at {} above its claim {}", c.notion, c.actual, c.bound);
    }
    doc
}

// ---------- BP-LIP RR ----------

/// By the modular property (Jiang et al. Lemma 2) a channel ε-LIP under every prior is
/// ε-LIP under their mean, the `lip` claim of the document: the priors [½, ½, 0] and
/// [⅓, ⅓, ⅓] at ε = 0.5 (the third input bounded only under the second prior) audited at
/// 0.5439 under the mean and were refused. Priors with zeros at random places, each
/// request feasible, all give documents.
#[test]
fn bp_lip_holds_under_the_mean_of_priors_that_disagree_on_their_support() {
    let third = 1.0 / 3.0;
    let priors = vec![vec![0.5, 0.5, 0.0], vec![third, third, 1.0 - 2.0 * third]];
    let doc = rr::rr_bp_lip(Alphabet::indices("x", 3).unwrap(), &priors, 0.5, None, "bp").unwrap();
    let doc = claims_hold_exactly(&doc, "bp-lip [½, ½, 0], [⅓, ⅓, ⅓]");
    assert_eq!(doc.claims().lip, Some(0.5));

    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut zero_somewhere = 0;
    for case in 0..120 {
        let k = rng.random_range(2..=5usize);
        let n = rng.random_range(2..=4usize);
        let priors: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                let mut p: Vec<f64> = (0..k).map(|_| rng.random::<f64>() + 0.02).collect();
                // Zero up to k − 1 inputs of this prior.
                for _ in 0..rng.random_range(0..k) {
                    p[rng.random_range(0..k)] = 0.0;
                }
                if p.iter().all(|&v| v == 0.0) {
                    p[0] = 1.0;
                }
                normalised(p)
            })
            .collect();
        zero_somewhere += usize::from(priors.iter().any(|p| p.contains(&0.0)));
        let eps = 10f64.powf(rng.random_range(-1.3..0.7));
        let what = format!("case {case}: priors {priors:?} at ε = {eps}");
        let doc = rr::rr_bp_lip(Alphabet::indices("x", k).unwrap(), &priors, eps, None, "bp")
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let doc = claims_hold_exactly(&doc, &what);
        assert_eq!(doc.claims().lip, Some(eps), "{what}");
        assert_eq!(doc.claims().bp_lip.as_ref().map(|b| b.eps), Some(eps), "{what}");
    }
    assert!(zero_somewhere >= 80, "{zero_somewhere} of 120 families had a zero");
}

