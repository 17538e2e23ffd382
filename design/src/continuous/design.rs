//! Designs of continuous mechanisms on a lattice, each returned as a document that was
//! **audited on its exact sampler** before it is returned (a design that misses its
//! claims is `design_failed`, never a document).
//!
//! | method | paper | noise | claims |
//! |---|---|---|---|
//! | `gaussian-lip` | Thm 5 on `[lo, hi]` | one σ: the smallest (relative 1e-4) whose exact lattice δ at ε is ≤ δ, by bisection from [`calibrate_on_domain`] | `lip {ε, δ}` |
//! | `gaussian-lip-instance` | Cor 10 | σ per bin (≤ 32 bins): Cor 10's σ(x) at each bin centre, scaled by the smallest factor the exact audit of the true mixture accepts (below) | `lip {ε, δ}` |
//! | `analytic-gaussian` | eq 24 | Balle–Wang σ for sensitivity `hi − lo`, raised until the lattice audit confirms | `ldp {ε, δ}` |
//! | `laplace-lip` | Thm 6, eq 25 | eq 25's `b` on the lattice prior, then the smallest `b` (relative 1e-6) whose exact lattice ε-LIP is ≤ ε | `lip {ε, 0}` |
//! | `laplace-ldp` | ref. 13 of the paper | `b = (hi − lo)/ε` | `ldp {ε, 0}` |
//! | `sampling` | eq 20, Prop 2 | Prop 2's λ | `lip {ε, δ}` |
//!
//! # Cor 10 and the true output distribution
//! Cor 10 computes each σ_N(x) as if every user used that same σ_N, i.e. against
//! `f_Y = N(μ, σ_X² + σ_N(x)²)`. With σ depending on `x` the real output law is the
//! mixture `P(j) = Σ_k p_k P_{σ(k)}(j|k)`, and the δ users get is not Cor 10's (see
//! [`crate::continuous`]'s `gaussian.rs`). `gaussian-lip-instance` therefore audits the
//! true mixture: it keeps the **shape** of Cor 10's σ(·) and multiplies it by the
//! smallest factor `c` (bisection, relative 1e-4, from `c = 1`) for which the exact
//! lattice audit gives δ ≤ the target; `utility.cor10_true_delta` records the δ Cor 10's
//! own σ(·) really has, so the discrepancy is visible in every such document.
//!
//! Measured (`design/tests/continuous_doc.rs`, `report_numbers`; prior N(0, 1), domain [−4, 4],
//! step 0.008, ε = 1): Cor 10's own σ(·) really gives δ = 0.14 for a target of 1e-3 and
//! 0.137 for 1e-5 (140× and 13 700× the target); the audited design multiplies it by
//! 4.8 (resp. 5.1), and the result (σ from 9.24 to 10.59, resp. 14.3 to 15.4) saves at
//! most 13 % (7 %) of the noise of the instance-independent σ (10.59, resp. 15.36).
//!
//! # What the exact lattice audit changes
//! * `gaussian-lip`: the lattice σ agrees with the continuous [`calibrate_on_domain`] to
//!   1e-4 (15.359 both, same setting, δ = 1e-5); the lattice δ of a fixed σ converges to
//!   the continuous δ of Thm 5 on the domain (relative 2e-5 at step 0.1, 6e-7 at 0.01).
//!   When the prior has mass outside the domain the two differ: the lattice prior is
//!   conditioned on `[lo, hi]` (values outside are refused), while the continuous `f_Y`
//!   keeps that mass; for the GMM 0.3·N(−2, 0.5²) + 0.7·N(1.5, 1) on [−4, 4] the
//!   lattice σ is 17.73 against the continuous 22.46 (the audit of the lattice is what
//!   the clients verify).
//! * `laplace-lip`: eq 25's `b` is 8.0 (its `Pmin` is the tiny mass of the last lattice
//!   cell, so it is almost `ΔX/ε`); the smallest `b` the exact audit accepts is 4.12
//!   (Gaussian prior) / 4.76 (GMM): half the noise for the same verified ε.
//! * `analytic-gaussian`: the discrete Gaussian's LDP δ at eq 24's σ was slightly above
//!   the continuous one; σ is raised by a relative 5e-7 (29.84505 → 29.84507).
//!
//! # Laplace with an x-dependent scale (eq 26)
//! Not offered: eq 26's `b(x)` is not well defined in the paper (its `Pmin`/`ΔX` terms
//! are per-value quantities whose combination into one output density is left open), and
//! an x-dependent Laplace scale makes the output a mixture with no pure-ε guarantee of
//! the form eq 25 asserts. `gaussian-lip-instance` is the instance-dependent design.

use alloc::string::String;
use alloc::vec::Vec;

use super::{
    analytic_gaussian_sigma, bisect_smallest, calibrate_at, calibrate_on_domain, laplace_ldp_scale, laplace_scales,
    sampling_lambda, ContinuousPrior, Lattice, LatticeMechanism,
};
use privlift::document::continuous::parse_prior;
use privlift::document::{ContinuousClaims, ContinuousDocument, ContinuousMechanism, DomainJson, EpsDelta, PriorJson};
use privlift::error::{Error, Result};
use privlift::mechanism::continuous::ContinuousPolicy;
use privlift::param::{Delta, Epsilon};

/// The design methods, in help order.
pub const CONTINUOUS_METHODS: [&str; 6] =
    ["gaussian-lip", "gaussian-lip-instance", "analytic-gaussian", "laplace-lip", "laplace-ldp", "sampling"];

/// Most σ bins of `gaussian-lip-instance`.
pub const INSTANCE_BINS: usize = 32;

/// What to design.
#[derive(Debug, Clone, PartialEq)]
pub struct ContinuousRequest {
    /// One of [`CONTINUOUS_METHODS`].
    pub method: String,
    /// The domain `[lo, hi]` and its lattice step.
    pub domain: DomainJson,
    /// The prior of the user's value (copied into the document).
    pub prior: PriorJson,
    /// ε in nats (a designer's: > 0).
    pub epsilon: Epsilon,
    /// δ in (0, 1) for the (ε, δ) methods; ignored (may be 0) for `laplace-*`.
    pub delta: f64,
    /// Document id (default `METHOD-epsE`).
    pub id: Option<String>,
    /// The verification budget of the clients, in work units (absent: a client's default,
    /// [`privlift::verify::DEFAULT_MAX_VERIFY_WORK`]): a design they would refuse with
    /// `too_costly` is refused instead of returned (∞: never).
    pub max_verify_work: Option<f64>,
}

fn bad(name: &str, reason: impl Into<String>) -> Error {
    Error::invalid(name, reason)
}

/// The request's δ, for the methods that need one: in `(0, 1)`.
fn need_delta(delta: f64) -> Result<Delta> {
    if delta.is_finite() && delta > 0.0 && delta < 1.0 {
        Delta::new("delta", delta)
    } else {
        Err(bad("delta", alloc::format!("this method needs delta in (0, 1); got {delta}")))
    }
}

/// Designs a continuous mechanism and returns its audited document.
///
/// # Errors
/// `invalid_argument` for an unknown method, ε not finite and > 0 (≤ 700), a δ out of
/// range, or a histogram prior for `gaussian-lip-instance`; the domain/prior errors of
/// [`ContinuousDocument::from_wire`]; `infeasible` when no noise meets the target;
/// `too_costly` for a design its clients' budget (`max_verify_work`) would refuse
/// (Gaussian noise on many points: its verification grows with points × σ in steps, so
/// about with the square of the points); `design_failed` if the audited document misses
/// its claims.
pub fn design_continuous(req: &ContinuousRequest) -> Result<ContinuousDocument> {
    // A designer's ε is > 0 on top of the rule of `Epsilon` (no design reveals nothing).
    let epsilon = Epsilon::positive("epsilon", req.epsilon.get())?;
    let eps = epsilon.get();
    let d = req.domain;
    let lattice = Lattice::new(d.lo, d.hi, d.step)?;
    let prior = parse_prior(&req.prior)?;
    let p = prior.lattice_pmf(&lattice)?;
    let width = d.hi - d.lo;
    let mut utility = serde_json::json!({ "points": lattice.len() });
    crate::progress::expect_steps(expected_steps(&req.method, &prior));
    let lip_delta = |sigma: &[f64]| audited(LatticeMechanism::gaussian(lattice, p.clone(), sigma)?.lip_delta(epsilon));
    let lip_ok = |sigma: &[f64], delta: f64| -> Result<bool> {
        let (m, delta) = (LatticeMechanism::gaussian(lattice, p.clone(), sigma)?, Delta::new("delta", delta)?);
        Ok(!audited(m.lip_delta_exceeds(epsilon, delta))?)
    };
    // The clients' verification grows with σ: a σ below the design's already over their
    // budget refuses the design before its search (each step a whole LIP δ).
    let budget = privlift::verify::work_budget(req.max_verify_work)?;
    let affordable = |sigma: f64| -> Result<()> {
        let work = LatticeMechanism::gaussian(lattice, p.clone(), &[sigma])?.audit_work(1, 1);
        privlift::verify::Work(work).check(COSTLY, budget)
    };
    let (mechanism, claims) = match req.method.as_str() {
        "gaussian-lip" => {
            let target = need_delta(req.delta)?;
            let delta = target.get();
            let start = match prior.as_mixture() {
                Some(m) => {
                    let c = calibrate_on_domain(epsilon, target, &m, d.lo, d.hi)?;
                    utility["sigma_continuous"] = c.sigma_n.into();
                    c.sigma_n
                }
                None => width,
            };
            // The lattice σ is within 1e-3 of the continuous one when the domain holds the
            // prior, 0.79 of it for the GMM of the module docs, part of whose mass is outside.
            affordable(0.5 * start)?;
            let (sigma, below) = smallest_near(|s| lip_ok(&[s], delta), start, 1e-4)?;
            utility["sigma_below"] = below.into();
            (ContinuousMechanism::Gaussian { sigma: alloc::vec![sigma] }, lip_claim(epsilon, target))
        }
        "gaussian-lip-instance" => {
            let target = need_delta(req.delta)?;
            let delta = target.get();
            let Some(mix) = prior.as_mixture() else {
                return Err(bad("prior", "gaussian-lip-instance needs a Gaussian or GMM prior (Cor 10)"));
            };
            // The instance-independent σ meets the target: it caps every σ(x), so a
            // feasible scale always exists and the audit stays bounded.
            let start = calibrate_on_domain(epsilon, target, &mix, d.lo, d.hi)?.sigma_n;
            let (cap, _) = smallest_near(|s| lip_ok(&[s], delta), start, 1e-4)?;
            let n = lattice.len();
            let bins = n.min(INSTANCE_BINS);
            let mut shape = Vec::with_capacity(n);
            let mut per_bin = Vec::with_capacity(bins);
            for b in 0..bins {
                let (k0, k1) = (b * n / bins, (b + 1) * n / bins);
                let centre = 0.5 * (lattice.value(k0 as i64) + lattice.value(k1 as i64 - 1));
                let s = calibrate_at(epsilon, target, centre, &mix)?.sigma_n;
                per_bin.push(s);
                shape.extend(core::iter::repeat_n(s, k1 - k0));
            }
            utility["cor10_sigma"] = per_bin.clone().into();
            utility["sigma_uniform"] = cap.into();
            let capped = |c: f64| shape.iter().map(|s| (s * c).min(cap)).collect::<Vec<f64>>();
            utility["cor10_true_delta"] = lip_delta(&shape.iter().map(|s| s.min(cap * 64.0)).collect::<Vec<_>>())
                .map(serde_json::Value::from)
                .unwrap_or(serde_json::Value::Null);
            let (c, _) = bisect_smallest(
                |c| Ok(c * shape.iter().copied().fold(f64::INFINITY, f64::min) >= cap || lip_ok(&capped(c), delta)?),
                1.0,
                1e-4,
            )?;
            utility["scale"] = c.into();
            (ContinuousMechanism::Gaussian { sigma: capped(c) }, lip_claim(epsilon, target))
        }
        "analytic-gaussian" => {
            let target = need_delta(req.delta)?;
            let delta = target.get();
            let s0 = analytic_gaussian_sigma(epsilon, target, width)?;
            utility["sigma_eq24"] = s0.into();
            affordable(s0)?;
            let ldp = |s: f64| audited(LatticeMechanism::gaussian(lattice, p.clone(), &[s])?.ldp_delta(epsilon));
            let mut s = s0;
            let mut i = 0;
            while ldp(s)? > delta {
                i += 1;
                if i > 60 {
                    return Err(Error::DesignFailed { reason: "the lattice audit never confirmed eq 24's σ".into() });
                }
                s = s0 * (1.0 + AUDIT_STEP * libm::exp2(i as f64));
            }
            (ContinuousMechanism::Gaussian { sigma: alloc::vec![s] }, ldp_claim(epsilon, target))
        }
        "laplace-lip" => {
            let values: Vec<f64> = (0..lattice.len()).map(|k| lattice.value(k as i64)).collect();
            let b25 = laplace_scales(&values, &p, epsilon)?.b_lip;
            utility["b_eq25"] = b25.into();
            let lip = |b: f64| Ok(audited(LatticeMechanism::laplace(lattice, p.clone(), b)?.audit())?.lip_eps);
            let (b, _) = bisect_smallest(|b| Ok(lip(b)? <= eps), b25, 1e-6)?;
            (ContinuousMechanism::Laplace { b }, lip_claim(epsilon, Delta::ZERO))
        }
        "laplace-ldp" => {
            let b = laplace_ldp_scale(width, epsilon)?;
            (ContinuousMechanism::Laplace { b }, ldp_claim(epsilon, Delta::ZERO))
        }
        "sampling" => {
            let delta = need_delta(req.delta)?;
            let lambda = sampling_lambda(epsilon, delta)?;
            (ContinuousMechanism::Sampling { lambda }, lip_claim(epsilon, delta))
        }
        other => {
            return Err(bad(
                "method",
                alloc::format!(
                    "unknown continuous design `{other}` (expected one of {})",
                    CONTINUOUS_METHODS.join(", ")
                ),
            ))
        }
    };
    let id = req.id.clone().unwrap_or_else(|| alloc::format!("{}-eps{}", req.method, eps));
    let doc = ContinuousDocument::new(&id, d, req.prior.clone(), mechanism, claims)?;
    // A document its clients refuse is no design: refused here, before the final audit,
    // with the work it needs.
    doc.verify_work(&ContinuousPolicy::default())?.check(COSTLY, budget)?;
    // The curator audits its own design whatever it costs (the budget is the client's).
    let v =
        audited(doc.check(&ContinuousPolicy { max_verify_work: Some(f64::INFINITY), ..ContinuousPolicy::default() }))?;
    if !v.claims_hold {
        return Err(Error::DesignFailed { reason: alloc::format!("the exact audit does not confirm {:?}", v.claims) });
    }
    let a = v.audit;
    let num = |x: f64| match x {
        x if x.is_finite() => serde_json::Value::from(x),
        x if x.is_nan() => "nan".into(),
        x => alloc::format!("{x}").into(),
    };
    utility["audit"] = serde_json::json!({
        "lip": {"eps": num(a.lip.eps), "delta": num(a.lip.delta)},
        "ldp": {"eps": num(a.ldp.eps), "delta": num(a.ldp.delta)},
        "lip_pure_eps": num(a.lip_pure_eps),
        "ldp_pure_eps": num(a.ldp_pure_eps),
        "tail_mass": num(a.tail_mass),
    });
    Ok(doc.with_utility(utility))
}

/// When the lattice audit does not confirm eq 24's σ, it is raised by this relative step,
/// doubled at each refusal (60 times at the most): the first step is far above the
/// bisection's bracket ([`super::SIGMA_WIDTH`]) and costs no noise worth naming, and
/// doubling reaches a factor of 2 by the 30th step.
const AUDIT_STEP: f64 = 1e-9;

/// Certified bounds of [`calibrate_on_domain`] (relative width 1e-6) from a start within
/// a factor 2: the bracket's two ends, then bisection of a 0.5 bracket.
const CALIBRATION_STEPS: usize = 2 + 19;

/// Audits of [`smallest_near`] at relative width 1e-4 when its bracket holds: its two
/// ends, then bisection of a 2e-2 bracket.
const NEAR_AUDITS: usize = 2 + 8;

/// Audits of [`bisect_smallest`] from a start within a factor 2 at relative width 1e-4
/// (the bracket's two ends, then bisection of a 0.5 bracket); 1e-6 takes 6 more.
const BISECT_AUDITS: usize = 2 + 13;

/// The steps ([`crate::progress::Steps`]) `method` is expected to make on `prior`, the
/// audit of the published document included.
fn expected_steps(method: &str, prior: &ContinuousPrior) -> usize {
    let calibration = if prior.as_mixture().is_some() { CALIBRATION_STEPS } else { 0 };
    let searches = match method {
        "gaussian-lip" if calibration > 0 => calibration + NEAR_AUDITS,
        "gaussian-lip" => BISECT_AUDITS,
        "gaussian-lip-instance" => calibration + NEAR_AUDITS + 1 + BISECT_AUDITS,
        "analytic-gaussian" => 1,
        "laplace-lip" => BISECT_AUDITS + 6,
        _ => 0,
    };
    searches + 1
}

/// Passes an exact audit's result through, telling the step observer it is done.
fn audited<T>(audit: Result<T>) -> Result<T> {
    crate::progress::step();
    audit
}

/// What a design over its clients' budget is, in its `too_costly` error.
const COSTLY: &str = "this design at its clients' budget (a coarser step, fewer points, verifies faster)";

/// [`bisect_smallest`] when `start` is known to be close (the continuous calibration is
/// within ~1e-3 of the lattice one when the domain holds the prior): bisection inside
/// `start·(1 ± 1e-2)` if that brackets the answer (10 audits instead of ~17), else the
/// general search.
fn smallest_near(mut ok: impl FnMut(f64) -> Result<bool>, start: f64, rel: f64) -> Result<(f64, f64)> {
    let (mut lo, mut hi) = (start * (1.0 - 1e-2), start * (1.0 + 1e-2));
    if !ok(hi)? || ok(lo)? {
        return bisect_smallest(ok, start, rel);
    }
    while hi - lo > hi * rel {
        let mid = lo + 0.5 * (hi - lo);
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((hi, lo))
}

fn lip_claim(eps: Epsilon, delta: Delta) -> ContinuousClaims {
    ContinuousClaims { lip: Some(EpsDelta { eps: eps.into(), delta }), ldp: None }
}

fn ldp_claim(eps: Epsilon, delta: Delta) -> ContinuousClaims {
    ContinuousClaims { lip: None, ldp: Some(EpsDelta { eps: eps.into(), delta }) }
}

/// The prior of `samples` as a fitted Gaussian mixture ([`super::fit_gmm`]), in wire form.
///
/// # Errors
/// The errors of [`super::fit_gmm`].
pub fn prior_from_samples(samples: &[f64], max_components: usize) -> Result<PriorJson> {
    let fit = super::fit_gmm(samples, max_components)?;
    let (mut weights, mut means, mut sds) = (Vec::new(), Vec::new(), Vec::new());
    for (w, g) in fit.mixture.components() {
        weights.push(w);
        means.push(g.mean());
        sds.push(g.sd());
    }
    Ok(PriorJson::Gmm { weights, means, sds })
}

/// The prior as [`ContinuousPrior`] (convenience for bindings).
///
/// # Errors
/// As [`parse_prior`].
pub fn prior_of(p: &PriorJson) -> Result<ContinuousPrior> {
    parse_prior(p)
}
