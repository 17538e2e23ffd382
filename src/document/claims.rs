//! What a document claims, as the audit compares it: every budget a [`Budget`] (finite,
//! ≥ 0 nats), every α-lift order > 1, every `bp_lip` prior a distribution over X and the
//! `srlip` attributes a factorisation of |X|. Read from the wire record (`ClaimsJson`,
//! `wire.rs`, private to the crate) once, by `Claims::from_wire`, and written back by
//! `Claims::to_wire`; nothing else reads the wire record's raw numbers.

use alloc::vec::Vec;

use super::wire::{AlipJson, AlphaLiftJson, BpLipJson, ClaimsJson, SrlipJson};
use super::{check_attributes, check_distribution, MAX_PRIORS};
use crate::error::{Error, Result};
use crate::param::Budget;

/// The privacy a document claims, in nats (every claim optional).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Claims {
    /// ε-LDP with respect to the secret S (equal to `ldp_x` when S = X).
    pub ldp: Option<Budget>,
    /// ε-LDP with respect to X (prior-free).
    pub ldp_x: Option<Budget>,
    /// ε-LIP (Jiang et al. eq 8) with respect to S.
    pub lip: Option<Budget>,
    /// (εl, εu)-ALIP (Zarrabian et al. Def 3) with respect to S.
    pub alip: Option<TwoSided>,
    /// ε-LIP w.r.t. X under every prior of a set (BP-LIP).
    pub bp_lip: Option<BpLip>,
    /// ℓ1-privacy w.r.t. S (Zarrabian et al. Sec. VI-B, eqs 27 and 30).
    pub l1: Option<TwoSided>,
    /// χ²-privacy w.r.t. S (Sec. VI-B, eqs 28 and 31).
    pub chi2: Option<TwoSided>,
    /// α-lift privacy w.r.t. S (Sec. VI-B, eq 33) at the claim's order.
    pub alpha: Option<AlphaLift>,
    /// ε-SRLIP w.r.t. S (Lopuhaä-Zwakenberg, privacy funnel, Def 3, eq 12).
    pub srlip: Option<Srlip>,
}

/// The two budgets (εl, εu) of `alip`, `l1` and `chi2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoSided {
    /// εl: the bound on the min-lift side.
    pub eps_l: Budget,
    /// εu: the bound on the max-lift side.
    pub eps_u: Budget,
}

/// The α-lift claim: its order α (finite, > 1) and its budgets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlphaLift {
    /// The order α.
    pub order: f64,
    /// εl, bounding Ψ_α(y) ≤ e^{εl} (eq 32).
    pub eps_l: Budget,
    /// εu, bounding Λ_α(y) ≤ e^{εu} (eq 29).
    pub eps_u: Budget,
}

/// The BP-LIP claim: ε under every prior of `priors`.
#[derive(Debug, Clone, PartialEq)]
pub struct BpLip {
    /// ε in nats.
    pub eps: Budget,
    /// Priors over X, each a distribution of length |X| (1..=[`MAX_PRIORS`] of them).
    pub priors: Vec<Vec<f64>>,
}

/// The SRLIP claim: ε and the attribute sizes |X¹|, …, |Xᵐ| whose product is |X|.
#[derive(Debug, Clone, PartialEq)]
pub struct Srlip {
    /// ε in nats.
    pub eps: Budget,
    /// The attribute sizes |X¹|, …, |Xᵐ|: the input alphabet is their product flattened
    /// row-major (attribute 1 most significant), x = ((x¹·|X²| + x²)·|X³| + x³)….
    pub attributes: Vec<usize>,
}

/// (ε_l, ε_u), each a budget (finite and ≥ 0 nats), named `[eps_l, eps_u]` in their errors.
fn two_sided([eps_l, eps_u]: [&str; 2], a: AlipJson) -> Result<TwoSided> {
    Ok(TwoSided { eps_l: Budget::finite(eps_l, a.eps_l)?, eps_u: Budget::finite(eps_u, a.eps_u)? })
}

/// The `bp_lip` claim: ε and its 1..=[`MAX_PRIORS`] priors over `nx` inputs. Out of line,
/// as each rarer claim: a document without it does not compile it at its first parse.
#[inline(never)]
fn bp_lip(bp: BpLipJson, nx: usize) -> Result<BpLip> {
    let eps = Budget::finite("claims.bp_lip.eps", bp.eps)?;
    if bp.priors.is_empty() || bp.priors.len() > MAX_PRIORS {
        return Err(Error::invalid(
            "claims.bp_lip.priors",
            alloc::format!("needs 1..={MAX_PRIORS} priors, got {}", bp.priors.len()),
        ));
    }
    for (i, p) in bp.priors.iter().enumerate() {
        let f = alloc::format!("claims.bp_lip.priors[{i}]");
        if p.len() != nx {
            return Err(Error::field(f).dims(nx, p.len()));
        }
        check_distribution(&f, p)?;
    }
    Ok(BpLip { eps, priors: bp.priors })
}

/// The `alpha` claim: an order finite and > 1, and its two budgets.
#[inline(never)]
fn alpha_lift(a: AlphaLiftJson) -> Result<AlphaLift> {
    if !a.order.is_finite() || a.order <= 1.0 {
        return Err(Error::invalid(
            "claims.alpha.order",
            alloc::format!("the α-lift order must be finite and > 1, got {}", crate::numeric::Shown(a.order)),
        ));
    }
    let eps_l = Budget::finite("claims.alpha.eps_l", a.eps_l)?;
    Ok(AlphaLift { order: a.order, eps_l, eps_u: Budget::finite("claims.alpha.eps_u", a.eps_u)? })
}

/// The `srlip` claim: ε and the attribute sizes, whose product is `nx`.
#[inline(never)]
fn srlip(c: SrlipJson, nx: usize) -> Result<Srlip> {
    let eps = Budget::finite("claims.srlip.eps", c.eps)?;
    check_attributes("claims.srlip.attributes", &c.attributes, nx)?;
    Ok(Srlip { eps, attributes: c.attributes })
}

impl Claims {
    /// The claims of the wire record of a document over `nx` input values, checked in the
    /// order of the record's fields after `bp_lip`.
    ///
    /// A claim is named by its full path (`claims.lip`), written out rather than formatted:
    /// a page's first parse then compiles no formatting code unless a claim is wrong.
    ///
    /// # Errors
    /// `non_finite` or `invalid_argument` naming the claim for a budget that is not finite
    /// and ≥ 0, an α-lift order not finite and > 1, 0 or more than [`MAX_PRIORS`] `bp_lip`
    /// priors; a prior's size and distribution errors; the errors of [`check_attributes`].
    pub(crate) fn from_wire(w: ClaimsJson, nx: usize) -> Result<Claims> {
        let bp_lip = w.bp_lip.map(|bp| bp_lip(bp, nx)).transpose()?;
        let one = |name: &str, v: Option<f64>| v.map(|e| Budget::finite(name, e)).transpose();
        let (ldp, ldp_x, lip) = (one("claims.ldp", w.ldp)?, one("claims.ldp_x", w.ldp_x)?, one("claims.lip", w.lip)?);
        let alip = w.alip.map(|a| two_sided(["claims.alip.eps_l", "claims.alip.eps_u"], a)).transpose()?;
        let l1 = w.l1.map(|a| two_sided(["claims.l1.eps_l", "claims.l1.eps_u"], a)).transpose()?;
        let chi2 = w.chi2.map(|a| two_sided(["claims.chi2.eps_l", "claims.chi2.eps_u"], a)).transpose()?;
        let alpha = w.alpha.map(alpha_lift).transpose()?;
        let srlip = w.srlip.map(|c| srlip(c, nx)).transpose()?;
        Ok(Claims { ldp, ldp_x, lip, alip, bp_lip, l1, chi2, alpha, srlip })
    }

    /// The wire record of these claims (for printing and serialising).
    pub(crate) fn to_wire(&self) -> ClaimsJson {
        let alip = |a: &TwoSided| AlipJson { eps_l: a.eps_l.get(), eps_u: a.eps_u.get() };
        ClaimsJson {
            ldp: self.ldp.map(Budget::get),
            ldp_x: self.ldp_x.map(Budget::get),
            lip: self.lip.map(Budget::get),
            alip: self.alip.as_ref().map(alip),
            bp_lip: self.bp_lip.as_ref().map(|b| BpLipJson { eps: b.eps.get(), priors: b.priors.clone() }),
            l1: self.l1.as_ref().map(alip),
            chi2: self.chi2.as_ref().map(alip),
            alpha: self.alpha.map(|a| AlphaLiftJson { order: a.order, eps_l: a.eps_l.get(), eps_u: a.eps_u.get() }),
            srlip: self.srlip.as_ref().map(|s| SrlipJson { eps: s.eps.get(), attributes: s.attributes.clone() }),
        }
    }
}
