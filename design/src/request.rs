//! Design requests as data ([`DesignRequest`], whose inputs are [`crate::inputs`]) and
//! [`design_inputs`], the one dispatch from a method name to its designer.

use alloc::string::String;
use serde::Deserialize;

pub use super::inputs::*;

use super::lift::Notion;
use super::vertex::Limits;
use super::{default_id, linear, optimal_ldp, orr, oue, rr, srlip, srr, watchdog, Source};
use privlift::document::{Alphabet, Document};
use privlift::error::Error;
use privlift::param::Epsilon;

/// Every design method, by the name the CLI and the JS binding use.
pub const METHODS: [&str; 15] = [
    "krr",
    "oue",
    "rr-lip",
    "rr-lip-interval",
    "rr-bp-lip",
    "linear-markov",
    "linear-tv",
    "linear-distance",
    "orr-lip",
    "orr-alip",
    "orr-ldp",
    "watchdog",
    "subset-merging",
    "srr",
    "srlip",
];

/// The methods that protect a secret S by a lift notion ([`lift_design`]): they take a
/// prior or a joint and the budgets of [`LiftBudget`].
pub const LIFT_METHODS: [&str; 6] = ["orr-lip", "orr-alip", "orr-ldp", "watchdog", "subset-merging", "srr"];

/// The budget of a lift-notion design: `epsilon` (LIP, LDP) or `eps_l`, `eps_u` (ALIP;
/// either for `l1`, `chi2`, `alpha`, where `epsilon` means εl = εu = ε), the notion by
/// name ([`NOTIONS`]) and the order α (> 1) of the `alpha` notion.
#[derive(Debug, Clone, Default)]
pub struct LiftBudget {
    /// ε in nats: the budget of LIP and LDP, or εl = εu for `l1`, `chi2`, `alpha`.
    pub epsilon: Option<f64>,
    /// εl in nats: the lower budget of ALIP, or the lift-inverse one of `l1`, `chi2`, `alpha`.
    pub eps_l: Option<f64>,
    /// εu in nats: the upper budget of ALIP, or the lift-based one of `l1`, `chi2`, `alpha`.
    pub eps_u: Option<f64>,
    /// The notion by name ([`NOTIONS`]); the `orr-*` methods fix their own.
    pub notion: Option<String>,
    /// The order α (> 1) of the `alpha` notion (refused with any other).
    pub alpha_order: Option<f64>,
}

/// The notions [`LiftBudget::notion`] accepts: LIP, ALIP, LDP w.r.t. S and the lift-based +
/// lift-inverse notions of Zarrabian et al. Sec. VI-B (ℓ1, χ², α-lift; [`Notion`]).
pub const NOTIONS: [&str; 6] = ["lip", "alip", "ldp", "l1", "chi2", "alpha"];

impl LiftBudget {
    /// The notion `method` designs for. `orr-lip` is LIP and `orr-alip` ALIP whatever
    /// `notion` says (a conflicting `notion` is refused); the watchdog family reads
    /// `notion`, by default `alip` when `eps_l`/`eps_u` are given and `lip` otherwise.
    ///
    /// # Errors
    /// `invalid_argument` for an unknown notion, a missing budget, or a budget the
    /// notion does not take (`epsilon` with `eps_l`, `eps_u` for ALIP, …); for
    /// `alpha_order` with a notion other than `alpha`, or `alpha` without one. (The
    /// order's value is checked with the budgets, by [`Notion::check`].)
    pub fn notion(&self, method: &str) -> Result<Notion, Error> {
        let fixed = match method {
            "orr-lip" => Some("lip"),
            "orr-alip" => Some("alip"),
            "orr-ldp" => Some("ldp"),
            _ => None,
        };
        let name = match (fixed, self.notion.as_deref()) {
            (Some(f), Some(n)) if f != n => {
                return Err(Error::invalid(
                    "notion",
                    alloc::format!("design method `{method}` is for `{f}`, not `{n}`"),
                ))
            }
            (Some(f), _) => f,
            (None, Some(n)) => n,
            (None, None) if self.eps_l.is_some() || self.eps_u.is_some() => "alip",
            (None, None) => "lip",
        };
        let asym = self.eps_l.is_some() || self.eps_u.is_some();
        // Each budget becomes a designer's ε (> 0) here, the one place it is read.
        let pair = |l: f64, u: f64| -> Result<(Epsilon, Epsilon), Error> {
            Ok((Epsilon::positive("eps_l", l)?, Epsilon::positive("eps_u", u)?))
        };
        let two = |m: &str| -> Result<(Epsilon, Epsilon), Error> {
            if self.epsilon.is_some() {
                return Err(Error::invalid(
                    "epsilon",
                    alloc::format!("`{m}` takes `eps_l` and `eps_u`, not `epsilon`"),
                ));
            }
            pair(self.eps_l.ok_or_else(|| missing(m, "eps_l"))?, self.eps_u.ok_or_else(|| missing(m, "eps_u"))?)
        };
        let one = |m: &str| -> Result<Epsilon, Error> {
            if asym {
                return Err(Error::invalid(
                    "eps_l, eps_u",
                    alloc::format!("`{m}` takes `epsilon`, not `eps_l`/`eps_u`"),
                ));
            }
            Epsilon::positive("epsilon", self.epsilon.ok_or_else(|| missing(m, "epsilon"))?)
        };
        if self.alpha_order.is_some() && name != "alpha" {
            return Err(Error::invalid(
                "alpha_order",
                alloc::format!("only the `alpha` notion takes `alpha_order`, not `{name}`"),
            ));
        }
        let label = alloc::format!("{method} --notion {name}");
        // ℓ1, χ², α-lift: (εl, εu), or `epsilon` for εl = εu.
        let either = |m: &str| -> Result<(Epsilon, Epsilon), Error> {
            match self.epsilon {
                Some(e) if asym => Err(Error::invalid(
                    "epsilon",
                    alloc::format!("`{m}` takes `epsilon` ({e}) or `eps_l` and `eps_u`, not both"),
                )),
                Some(e) => pair(e, e),
                None if asym => two(m),
                None => Err(missing(m, "epsilon` or `eps_l` and `eps_u")),
            }
        };
        match name {
            "lip" => Ok(Notion::Lip { eps: one(&label)? }),
            "ldp" => Ok(Notion::Ldp { eps: one(&label)? }),
            "alip" => {
                let (eps_l, eps_u) = two(&label)?;
                Ok(Notion::Alip { eps_l, eps_u })
            }
            "l1" => {
                let (eps_l, eps_u) = either(&label)?;
                Ok(Notion::L1 { eps_l, eps_u })
            }
            "chi2" => {
                let (eps_l, eps_u) = either(&label)?;
                Ok(Notion::Chi2 { eps_l, eps_u })
            }
            "alpha" => {
                let order = self.alpha_order.ok_or_else(|| missing(&label, "alpha_order"))?;
                let (eps_l, eps_u) = either(&label)?;
                Ok(Notion::AlphaLift { order, eps_l, eps_u })
            }
            other => Err(Error::invalid(
                "notion",
                alloc::format!("unknown notion `{other}` (expected one of {})", NOTIONS.join(", ")),
            )),
        }
    }
}

/// Runs a lift-notion design ([`LIFT_METHODS`]) on `source`.
///
/// # Errors
/// `invalid_argument` for an unknown method, a bad budget or notion, or a size the
/// vertex enumeration refuses (the message suggests `srr`); the design's own errors
/// (`infeasible` when no private watchdog exists).
pub fn lift_design(method: &str, source: &Source, budget: &LiftBudget, id: &str) -> Result<Document, Error> {
    lift_design_with(method, source, budget, id, false)
}

/// [`lift_design`], with the vertex search's caps lifted when `exact` ([`EXACT_METHODS`]
/// only: [`orr::optimal_with`] and [`Limits::NONE`]).
///
/// # Errors
/// As [`lift_design`]; `invalid_argument` (`exact`) for `exact` with another method.
pub fn lift_design_with(
    method: &str,
    source: &Source,
    budget: &LiftBudget,
    id: &str,
    exact: bool,
) -> Result<Document, Error> {
    let notion = budget.notion(method)?;
    if exact && !EXACT_METHODS.contains(&method) {
        return Err(not_exact(method));
    }
    match method {
        "orr-lip" | "orr-alip" => orr::optimal_with(source, notion, id, exact.then_some(Limits::NONE)),
        "orr-ldp" => match notion {
            Notion::Ldp { eps } => optimal_ldp::optimal_ldp(source, eps, id),
            _ => Err(Error::invalid("notion", "`orr-ldp` is for `ldp`")),
        },
        "watchdog" => watchdog::watchdog(source, notion, id),
        "subset-merging" => watchdog::subset_merging(source, notion, id),
        "srr" => srr::srr(source, notion, id),
        _ => Err(Error::invalid(
            "method",
            alloc::format!("`{method}` is not a lift-notion design ({})", LIFT_METHODS.join(", ")),
        )),
    }
}

/// The document id of a lift-notion design when none is given: `METHOD-NOTION-epsE`
/// or `METHOD-NOTION-epsA-B` (NOTION `alphaK` for the α-lift notion of order K).
pub fn lift_default_id(method: &str, budget: &LiftBudget) -> String {
    let name = match (method, budget.notion(method)) {
        ("orr-lip" | "orr-alip" | "orr-ldp", _) => method.into(),
        (_, Ok(Notion::AlphaLift { order, .. })) => alloc::format!("{method}-alpha{order}"),
        (_, n) => alloc::format!("{method}-{}", n.map(|n| n.name()).unwrap_or("lift")),
    };
    match (budget.epsilon, budget.eps_l, budget.eps_u) {
        (Some(e), _, _) => alloc::format!("{name}-eps{e}"),
        (None, Some(a), Some(b)) => alloc::format!("{name}-eps{a}-{b}"),
        _ => name,
    }
}

/// The methods whose vertex-search caps `exact` lifts ([`DesignRequest::exact`]).
pub const EXACT_METHODS: [&str; 2] = ["orr-lip", "orr-alip"];

fn not_exact(method: &str) -> Error {
    Error::invalid(
        "exact",
        alloc::format!(
            "lifts the vertex search's caps of {}; `{method}` has none to lift",
            EXACT_METHODS.join(" and ")
        ),
    )
}

/// A design request: the inputs a method needs (the others absent).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DesignRequest {
    /// The prior of X (`P.json`), or `joint`; `rr-lip-interval` takes only its labels.
    #[serde(default)]
    pub prior: Option<PriorFile>,
    /// The joint of S and X (`J.json`), or `prior`; `srlip` and the `linear-*` methods need it.
    #[serde(default)]
    pub joint: Option<JointFile>,
    /// The set of priors of `rr-bp-lip` (`PS.json`).
    #[serde(default)]
    pub priors: Option<PriorsFile>,
    /// The distortion of `rr-bp-lip` and `linear-distance` (`D.json`); |x − y| on indices when absent.
    #[serde(default)]
    pub distortion: Option<DistortionFile>,
    /// The budget ε in nats (for the lift methods, see [`LiftBudget::epsilon`]).
    #[serde(default)]
    pub epsilon: Option<f64>,
    /// The factor α ∈ (0, 1] of the `linear-*` methods.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// The lower end a of the interval P_X(1) ∈ [a, b] of `rr-lip-interval`.
    #[serde(default)]
    pub a: Option<f64>,
    /// The upper end b of the interval P_X(1) ∈ [a, b] of `rr-lip-interval`.
    #[serde(default)]
    pub b: Option<f64>,
    /// The lower budget εl in nats of the lift methods ([`LiftBudget::eps_l`]).
    #[serde(default)]
    pub eps_l: Option<f64>,
    /// The upper budget εu in nats of the lift methods ([`LiftBudget::eps_u`]).
    #[serde(default)]
    pub eps_u: Option<f64>,
    /// The lift notion by name ([`NOTIONS`]).
    #[serde(default)]
    pub notion: Option<String>,
    /// The order α (> 1) of the `alpha` notion.
    #[serde(default)]
    pub alpha_order: Option<f64>,
    /// What `rr-lip` optimises: `hit` (P(Y = X), the paper's; the default), `mi`
    /// (I(X;Y)) or `distortion` (E[d(X,Y)], with `distortion`); see [`rr::Objective`].
    #[serde(default)]
    pub objective: Option<String>,
    /// The document id; by default [`lift_default_id`] or [`default_id`] of the method.
    #[serde(default)]
    pub id: Option<String>,
    /// Lift the vertex search's caps ([`EXACT_METHODS`]): the exact design at sizes the
    /// default caps refuse after about a second, however long it takes.
    #[serde(default)]
    pub exact: Option<bool>,
}

fn missing(method: &str, what: &str) -> Error {
    Error::invalid(what, alloc::format!("design method `{method}` needs `{what}`"))
}

/// An error of [`design_inputs`], with the input it is about (`"prior"`, `"joint"`,
/// `"priors"`, `"distortion"`), if any: a command-line tool names that input's file.
#[derive(Debug)]
pub struct InputError {
    /// The request field whose content is wrong; `None` for the method, the budget or
    /// the design itself.
    pub input: Option<&'static str>,
    /// The error.
    pub error: Error,
}

impl From<Error> for InputError {
    fn from(error: Error) -> Self {
        InputError { input: None, error }
    }
}

/// Tags the errors of loading one input with its name.
fn input<T>(name: &'static str, r: Result<T, Error>) -> Result<T, InputError> {
    r.map_err(|error| InputError { input: Some(name), error })
}

fn source_of(method: &str, req: &mut DesignRequest) -> Result<Source, InputError> {
    match (req.prior.take(), req.joint.take()) {
        (Some(_), Some(_)) => Err(Error::invalid(
            "prior, joint",
            alloc::format!("design method `{method}` takes either `prior` or `joint`, not both"),
        )
        .into()),
        (Some(p), None) => input("prior", load_prior(p).and_then(|(labels, p)| Source::prior(labels, p))),
        (None, Some(j)) => {
            input("joint", load_joint(j, None).and_then(|(secret, labels, p_sx)| Source::joint(secret, labels, p_sx)))
        }
        (None, None) => Err(missing(method, "prior` or `joint").into()),
    }
}

/// Runs design `method` on `req` and returns the published (audited) document: the one
/// dispatch from a method name to its designer (the CLI, the wasm module and
/// [`design`] all call it).
///
/// # Errors
/// As [`design`], each with the input it is about.
pub fn design_inputs(method: &str, mut req: DesignRequest) -> Result<Document, InputError> {
    let eps = req.epsilon;
    if LIFT_METHODS.contains(&method) {
        let budget = LiftBudget {
            epsilon: eps,
            eps_l: req.eps_l,
            eps_u: req.eps_u,
            notion: req.notion.take(),
            alpha_order: req.alpha_order,
        };
        let id = req.id.take().unwrap_or_else(|| lift_default_id(method, &budget));
        let src = source_of(method, &mut req)?;
        return Ok(lift_design_with(method, &src, &budget, &id, req.exact == Some(true))?);
    }
    if req.exact == Some(true) {
        return Err(not_exact(method).into());
    }
    // An ε outside its range is refused below, by the method that reads it.
    let id = req.id.take().unwrap_or_else(|| default_id(method, eps.and_then(|e| Epsilon::new("epsilon", e).ok())));
    let need_eps = || Epsilon::positive("epsilon", eps.ok_or_else(|| missing(method, "epsilon"))?);
    let need_alpha = || req.alpha.ok_or_else(|| missing(method, "alpha"));
    let doc = match method {
        "krr" => rr::krr(&source_of(method, &mut req)?, need_eps()?, &id)?,
        "oue" => oue::oue(&source_of(method, &mut req)?, need_eps()?, &id)?,
        "rr-lip" => {
            let objective = req.objective.take().map(|o| rr::Objective::parse(&o)).transpose()?.unwrap_or_default();
            let src = source_of(method, &mut req)?;
            let d = req
                .distortion
                .take()
                .map(|d| input("distortion", checked_distortion(d, src.labels().len())))
                .transpose()?;
            rr::rr_lip_for(&src, need_eps()?, objective, d.as_ref(), &id)?
        }
        "rr-lip-interval" => {
            let (a, b) = (req.a.ok_or_else(|| missing(method, "a"))?, req.b.ok_or_else(|| missing(method, "b"))?);
            let labels = match req.prior.take() {
                Some(p) => input("prior", load_prior(p).and_then(|(l, _)| rr::binary_labels(l)))?,
                None => Alphabet::indices("labels", 2)?,
            };
            rr::rr_lip_interval(labels, a, b, need_eps()?, &id)?
        }
        "rr-bp-lip" => {
            let priors = req.priors.take().ok_or_else(|| missing(method, "priors"))?;
            let (labels, priors) = input("priors", checked_priors(priors))?;
            let d =
                req.distortion.take().map(|d| input("distortion", checked_distortion(d, labels.len()))).transpose()?;
            rr::rr_bp_lip(labels, &priors, need_eps()?, d.as_ref(), &id)?
        }
        "srlip" => {
            let joint = req.joint.take().ok_or_else(|| missing(method, "joint"))?;
            let joint = input("joint", srlip::load_multi_joint(joint))?;
            srlip::srlip(&joint, need_eps()?, &id)?
        }
        "linear-markov" | "linear-tv" | "linear-distance" => {
            let alpha = need_alpha()?;
            let src = source_of(method, &mut req)?;
            match method {
                "linear-markov" => linear::markov(&src, alpha, &id)?,
                "linear-tv" => linear::tv(&src, alpha, &id)?,
                _ => {
                    let d = req
                        .distortion
                        .take()
                        .map(|d| input("distortion", checked_distortion(d, src.labels().len())))
                        .transpose()?;
                    linear::distance(&src, alpha, d.as_ref(), &id)?
                }
            }
        }
        _ => {
            return Err(Error::invalid(
                "method",
                alloc::format!("unknown design method `{method}` (expected one of {})", METHODS.join(", ")),
            )
            .into())
        }
    };
    Ok(doc)
}

/// Runs design `method` on `req` and returns the published (audited) document.
///
/// # Errors
/// `invalid_argument` for an unknown method or a missing input; the validation and
/// design errors of the method.
pub fn design(method: &str, req: DesignRequest) -> Result<Document, Error> {
    design_inputs(method, req).map_err(|e| e.error)
}
