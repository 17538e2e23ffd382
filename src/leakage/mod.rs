//! The leakage audit: every measure privlift reports, computed from a channel and a joint.
//!
//! All logarithmic measures are in nats. Conventions (issue contract and papers):
//! * outputs y with P(y) = 0 are ignored; secrets s with P(s) = 0 are ignored;
//! * a zero probability that makes a ratio unbounded gives `f64::INFINITY`, and so does a
//!   product that underflows into the subnormal range (no rounding bound holds there);
//! * privacy quantities are rounded to the conservative side (see [`crate::numeric`]):
//!   upper bounds (`lip`, `eps_l`, `eps_u`, `ldp`, `ldp_x`, `max_lift`, lift measures)
//!   are never below the exact value, the lower bound `min_lift` never above it.
//!   Mutual informations are utility/average figures and are reported as computed.

mod columns;
pub mod lattice;
mod lift;
mod measures;
mod rows;
mod srlip;
mod structured;
mod unary;

pub use columns::{Columns, Extremes, Term};
pub use lift::JointSY;
pub use measures::{alpha_eps, alpha_lift, chi2_eps, chi2_lift, l1_eps, l1_lift};
pub use srlip::{audit_srlip, check_attributes, Srlip, MAX_SRLIP_ATTRIBUTES, MAX_SRLIP_WORK};
pub(crate) use structured::ldp_x;
pub use structured::{audit_exact, joint_of, lip_exact, measure, srlip_channel, Exact, Joint, MixExact};
pub use unary::{audit_unary, audit_unary_x, unary_lift, unary_lifts_x, DINKELBACH_MAX_STEPS, UNARY_ENUMERATION_LIMIT};

use alloc::vec::Vec;
use serde::Serialize;

use crate::document::Matrix;
use crate::error::{Error, Result};
use crate::numeric::{abs_ln_up, down_rel, gamma, greatest, least, ln_up, up_rel, xlogy_ratio};

/// Default order of the α-lift measures (Zarrabian et al. eq 29).
pub const DEFAULT_ALPHA_ORDER: f64 = 2.0;

/// (εl, εu) of asymmetric LIP (Zarrabian et al. Def 3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Alip {
    /// max_y |ln Ψ(y)| = −ln min_y Ψ(y).
    pub eps_l: f64,
    /// max_y ln Λ(y).
    pub eps_u: f64,
}

/// Everything the audit computes for one mechanism and one joint P_SX.
///
/// A verification computes only what its claims, the policy and the receipts read
/// ([`Scope`]): the measures it did not need (`mi_sy`, `mi_xy`, `maximal_leakage` and,
/// without an ℓ1/χ²/α claim, the lift measures) are NaN ("not computed", `null` in JSON);
/// [`audit`] and `Document::audit` compute every one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Leakage {
    /// ε-LIP leakage w.r.t. S: sup_{s,y} |ln l(s,y)| (Jiang et al. eq 8, with S for X).
    pub lip: f64,
    /// (εl, εu)-ALIP w.r.t. S.
    pub alip: Alip,
    /// LDP w.r.t. S: max_y ln max_s P(y|s) / min_s P(y|s).
    pub ldp: f64,
    /// LDP w.r.t. X: max_y ln max_x P(y|x) / min_x P(y|x) — prior-free.
    pub ldp_x: f64,
    /// I(S;Y) in nats.
    pub mi_sy: f64,
    /// I(X;Y) in nats.
    pub mi_xy: f64,
    /// Maximal leakage ln Σ_y max_{x: P(x)>0} P(y|x) (Issa, Wagner, Kamath).
    pub maximal_leakage: f64,
    /// min_y Ψ(y) = min_{s,y} l(s,y) (a ratio, lower-rounded).
    pub min_lift: f64,
    /// max_y Λ(y) = max_{s,y} l(s,y) (a ratio, upper-rounded).
    pub max_lift: f64,
    /// max_y Λ_ℓ1(y) (eq 27).
    pub l1_lift: f64,
    /// max_y Λ_χ²(y) (eq 28).
    pub chi2_lift: f64,
    /// max_y Λ_α(y) (eq 29) at order [`Leakage::alpha_order`].
    pub alpha_lift: f64,
    /// max_y Ψ_ℓ1(y) (eq 30).
    pub l1_lift_inverse: f64,
    /// max_y Ψ_χ²(y) (eq 31).
    pub chi2_lift_inverse: f64,
    /// max_y Ψ_α(y) (eq 32).
    pub alpha_lift_inverse: f64,
    /// The α used for the α-lift measures.
    pub alpha_order: f64,
}

/// One member of a [`Leakage`] as a printer writes it: a number, or the ALIP pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Member {
    /// Every measure but ALIP.
    Number(f64),
    /// (εl, εu)-ALIP.
    Alip(Alip),
}

impl Leakage {
    /// The number of [`Leakage::members`].
    pub const MEMBERS: usize = 16;

    /// Every member with its field name (snake_case, as its `Serialize` writes it), in
    /// declaration order: what the CLI's `audit` and the JS results print, read from this
    /// one destructuring, so that a field added to `Leakage` does not compile until it is
    /// named here, and then reaches every printer.
    pub fn members(&self) -> [(&'static str, Member); Self::MEMBERS] {
        use Member::Number as N;
        let Leakage {
            lip,
            alip,
            ldp,
            ldp_x,
            mi_sy,
            mi_xy,
            maximal_leakage,
            min_lift,
            max_lift,
            l1_lift,
            chi2_lift,
            alpha_lift,
            l1_lift_inverse,
            chi2_lift_inverse,
            alpha_lift_inverse,
            alpha_order,
        } = *self;
        [
            ("lip", N(lip)),
            ("alip", Member::Alip(alip)),
            ("ldp", N(ldp)),
            ("ldp_x", N(ldp_x)),
            ("mi_sy", N(mi_sy)),
            ("mi_xy", N(mi_xy)),
            ("maximal_leakage", N(maximal_leakage)),
            ("min_lift", N(min_lift)),
            ("max_lift", N(max_lift)),
            ("l1_lift", N(l1_lift)),
            ("chi2_lift", N(chi2_lift)),
            ("alpha_lift", N(alpha_lift)),
            ("l1_lift_inverse", N(l1_lift_inverse)),
            ("chi2_lift_inverse", N(chi2_lift_inverse)),
            ("alpha_lift_inverse", N(alpha_lift_inverse)),
            ("alpha_order", N(alpha_order)),
        ]
    }
}

/// Audits a Markov mechanism S → X → Y given the joint P_SX (rows s) and the channel
/// P(Y|X) (rows x). For S = X pass the diagonal joint diag(P_X).
///
/// # Errors
/// `dimension_mismatch` if the sizes disagree; `invalid_argument` for an α-order that
/// is not finite or not > 0 and ≠ 1.
pub fn audit(p_sx: &Matrix, p_y_given_x: &Matrix, alpha_order: f64) -> Result<Leakage> {
    if p_sx.cols() != p_y_given_x.rows() {
        return Err(Error::field("p_y_given_x").dims(p_sx.cols(), p_y_given_x.rows()));
    }
    check_alpha(alpha_order)?;
    let joint = JointSY::markov(p_sx, p_y_given_x);
    let prior = p_sx.col_sums();
    let mut out = from_joint(&joint, alpha_order);
    out.ldp_x = ldp_of_rows(p_y_given_x);
    out.mi_xy = mutual_information_xy(&prior, p_y_given_x, joint.p_y());
    out.maximal_leakage = maximal_leakage(&prior, p_y_given_x);
    Ok(out)
}

/// Audits a non-Markov mechanism P(Y|S,X) (Ding, Liu, Farokhi eq 9–10): the S-side
/// measures from P(s,y) = Σ_x P(s,x) P(y|s,x). The X-side measures (`ldp_x`, `mi_xy`,
/// `maximal_leakage`) use the induced channel P(y|x) = Σ_s P(s|x) P(y|s,x) (their eq 9),
/// which is what relates the released Y to X; for an x with P(x) = 0 that channel is
/// undefined and the average of the per-secret rows is used.
pub fn audit_per_secret(p_sx: &Matrix, p_y_given_sx: &[Matrix], alpha_order: f64) -> Result<Leakage> {
    if p_y_given_sx.len() != p_sx.rows() {
        return Err(Error::field("p_y_given_sx").dims(p_sx.rows(), p_y_given_sx.len()));
    }
    if let Some(m) = p_y_given_sx.iter().find(|m| m.rows() != p_sx.cols()) {
        return Err(Error::field("p_y_given_sx").dims(p_sx.cols(), m.rows()));
    }
    check_alpha(alpha_order)?;
    let joint = JointSY::per_secret(p_sx, p_y_given_sx);
    let induced = induced_channel(p_sx, p_y_given_sx);
    let prior = p_sx.col_sums();
    let mut out = from_joint(&joint, alpha_order);
    out.ldp_x = ldp_of_rows(&induced);
    out.mi_xy = mutual_information_xy(&prior, &induced, joint.p_y());
    out.maximal_leakage = maximal_leakage(&prior, &induced);
    Ok(out)
}

/// P(y|x) = Σ_s P(s|x) P(y|s,x) (Ding, Liu, Farokhi eq 9).
pub fn induced_channel(p_sx: &Matrix, p_y_given_sx: &[Matrix]) -> Matrix {
    let (ns, nx) = (p_sx.rows(), p_sx.cols());
    let ny = p_y_given_sx.first().map_or(0, Matrix::cols);
    let px = p_sx.col_sums();
    let mut w = alloc::vec![0.0; nx * ny];
    for x in 0..nx {
        let row = &mut w[x * ny..(x + 1) * ny];
        for (s, m) in p_y_given_sx.iter().enumerate() {
            let weight = if px[x] > 0.0 { p_sx.get(s, x) / px[x] } else { 1.0 / ns as f64 };
            for (o, v) in row.iter_mut().zip(m.row(x)) {
                *o += weight * v;
            }
        }
    }
    Matrix::from_flat(nx, ny, w)
}

pub(crate) fn check_alpha(a: f64) -> Result<()> {
    if !a.is_finite() || a <= 0.0 || a == 1.0 {
        return Err(Error::invalid(
            "alpha_order",
            alloc::format!("must be finite, > 0 and ≠ 1; got {a}", a = crate::numeric::Shown(a)),
        ));
    }
    Ok(())
}

/// Which of the optional measures an audit computes; the others are NaN. The lift bounds
/// (`lip`, `alip`, `min_lift`, `max_lift`) and the LDPs are always computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// The ℓ1, χ² and α lift measures (Zarrabian et al. eqs 27–32).
    pub lift_measures: bool,
    /// I(S;Y), I(X;Y) and maximal leakage.
    pub information: bool,
}

impl Scope {
    /// Every measure (what `privlift audit` prints).
    pub const ALL: Scope = Scope { lift_measures: true, information: true };
    /// What a verification needs for `claims`: the lift measures only when an ℓ1, χ² or
    /// α claim reads them; no information measure (no claim or limit reads one).
    pub fn for_claims(claims: &crate::document::Claims) -> Scope {
        Scope {
            lift_measures: claims.l1.is_some() || claims.chi2.is_some() || claims.alpha.is_some(),
            information: false,
        }
    }
}

/// Every S-side measure from P_SY. `ldp_x`, `mi_xy` and `maximal_leakage` are left
/// at 0 for the caller to fill from the channel.
pub fn from_joint(j: &dyn Columns, alpha: f64) -> Leakage {
    from_joint_in(j, alpha, Scope::ALL)
}

/// [`from_joint`] computing only the measures of `scope` (the others NaN).
///
/// One copy in the client module for every kind of joint (`dyn`, called once per column).
pub fn from_joint_in(j: &dyn Columns, alpha: f64, scope: Scope) -> Leakage {
    let rel = j.lift_rel_error();
    let (e, mi_sy, measures) = if scope.lift_measures || scope.information {
        every_column(j, alpha, rel, scope)
    } else {
        // What a verification reads: the extremes alone, in the joint's fastest order.
        (j.extremes(), 0.0, [0.0; 6])
    };
    let (min_l, max_l) = if e.min_lift == f64::INFINITY {
        // No possible output at all cannot happen for a valid document; report no leakage.
        (1.0, 1.0)
    } else {
        (e.min_lift, e.max_lift)
    };
    let ldp = ln_of_ratio(e.worst_ratio, gamma(2 * j.roundings() + 3));
    let mut out = leakage_of(j, alpha, rel, (min_l, max_l, ldp, mi_sy), measures);
    let nan = f64::NAN;
    if !scope.information {
        (out.mi_sy, out.mi_xy, out.maximal_leakage) = (nan, nan, nan);
    }
    if !scope.lift_measures {
        out.l1_lift = nan;
        out.chi2_lift = nan;
        out.alpha_lift = nan;
        out.l1_lift_inverse = nan;
        out.chi2_lift_inverse = nan;
        out.alpha_lift_inverse = nan;
    }
    out
}

/// The extremes, I(S;Y) and the six lift measures (ℓ1, χ², α and their inverses), column
/// by column: the measures of a column read all of its lifts.
fn every_column(j: &dyn Columns, alpha: f64, rel: f64, scope: Scope) -> (Extremes, f64, [f64; 6]) {
    let mut e = Extremes::NONE;
    let mut mi_sy = 0.0;
    let (mut l1, mut chi2, mut al, mut l1i, mut chi2i, mut ali) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut terms: Vec<Term> = Vec::new();
    let mut lifts: Vec<(f64, f64)> = Vec::new();
    for y in 0..j.ny() {
        terms.clear();
        if !j.column(y, &mut terms) {
            continue;
        }
        if scope.information {
            for t in &terms {
                mi_sy += xlogy_ratio(t.joint, t.independent);
            }
        }
        if terms.is_empty() {
            continue;
        }
        e.fold_column(&terms);
        if !scope.lift_measures {
            continue;
        }
        lifts.clear();
        lifts.extend(terms.iter().map(|t| (t.weight, t.lift)));
        l1 = l1.max(l1_lift(&lifts, rel, false));
        chi2 = chi2.max(chi2_lift(&lifts, rel, false));
        al = al.max(alpha_lift(&lifts, alpha, rel, false));
        l1i = l1i.max(l1_lift(&lifts, rel, true));
        chi2i = chi2i.max(chi2_lift(&lifts, rel, true));
        ali = ali.max(alpha_lift(&lifts, alpha, rel, true));
    }
    (e, mi_sy, [l1, chi2, al, l1i, chi2i, ali])
}

/// The [`Leakage`] of the extremes and sums [`from_joint_in`] gathered.
fn leakage_of(
    j: &dyn Columns,
    alpha: f64,
    rel: f64,
    (min_l, max_l, ldp, mi_sy): (f64, f64, f64, f64),
    [l1, chi2, al, l1i, chi2i, ali]: [f64; 6],
) -> Leakage {
    let Alip { eps_l, eps_u } = alip_of_extremes(min_l, max_l, rel);
    if j.underflowed() {
        // A subnormal product: the computed lifts have no relative error bound (F8).
        let inf = f64::INFINITY;
        return Leakage {
            lip: inf,
            alip: Alip { eps_l: inf, eps_u: inf },
            ldp: inf,
            ldp_x: 0.0,
            mi_sy: mi_sy.max(0.0),
            mi_xy: 0.0,
            maximal_leakage: 0.0,
            min_lift: 0.0,
            max_lift: inf,
            l1_lift: inf,
            chi2_lift: inf,
            alpha_lift: inf,
            l1_lift_inverse: inf,
            chi2_lift_inverse: inf,
            alpha_lift_inverse: inf,
            alpha_order: alpha,
        };
    }
    Leakage {
        lip: eps_l.max(eps_u),
        alip: Alip { eps_l, eps_u },
        ldp,
        ldp_x: 0.0,
        mi_sy: mi_sy.max(0.0),
        mi_xy: 0.0,
        maximal_leakage: 0.0,
        min_lift: down_rel(min_l, rel),
        max_lift: up_rel(max_l, rel),
        l1_lift: l1,
        chi2_lift: chi2,
        alpha_lift: al,
        l1_lift_inverse: l1i,
        chi2_lift_inverse: chi2i,
        alpha_lift_inverse: ali,
        alpha_order: alpha,
    }
}

/// (εl, εu) from the smallest and largest computed lift, rounded up by `rel`.
fn alip_of_extremes(min_l: f64, max_l: f64, rel: f64) -> Alip {
    Alip { eps_l: abs_ln_up(min_l.min(1.0), rel), eps_u: ln_up(max_l, rel).max(0.0) }
}

/// LIP alone (Jiang et al. eq 8) of a Markov mechanism under the joint P_SX: the `lip` of
/// [`audit`], bit for bit, without the other measures (a `bp_lip` claim audits one LIP
/// per prior and needs nothing else).
///
/// # Errors
/// `dimension_mismatch` if the sizes disagree.
pub fn lip_only(p_sx: &Matrix, p_y_given_x: &Matrix) -> Result<f64> {
    if p_sx.cols() != p_y_given_x.rows() {
        return Err(Error::field("p_y_given_x").dims(p_sx.cols(), p_y_given_x.rows()));
    }
    Ok(lip_of(&JointSY::markov(p_sx, p_y_given_x)))
}

/// The `lip` of [`from_joint`], bit for bit, from the lifts alone.
pub fn lip_of(j: &dyn Columns) -> f64 {
    if j.underflowed() {
        return f64::INFINITY;
    }
    let e = j.extremes();
    if e.min_lift == f64::INFINITY {
        return 0.0;
    }
    let a = alip_of_extremes(e.min_lift, e.max_lift, j.lift_rel_error());
    a.eps_l.max(a.eps_u)
}

/// LDP w.r.t. X: max over outputs y that some input with positive prior can produce of
/// ln max_x P(y|x) / min_x P(y|x), over *all* inputs x (LDP is prior-free: an input the
/// curator says is impossible is still protected). Exact entries, one division, one log.
pub fn ldp_of_rows(p_y_given_x: &Matrix) -> f64 {
    // Column extremes gathered row by row (the matrix is row-major): max and min are exact,
    // so the order does not change the result.
    let ny = p_y_given_x.cols();
    let (mut hi, mut lo) = (alloc::vec![0.0f64; ny], alloc::vec![f64::INFINITY; ny]);
    for x in 0..p_y_given_x.rows() {
        fold_row_extremes(&mut hi, &mut lo, p_y_given_x.row(x));
    }
    ldp_of_extremes(&hi, &lo)
}

/// [`ldp_of_rows`] from each output's largest and smallest P(y|x) over the inputs.
pub(crate) fn ldp_of_extremes(hi: &[f64], lo: &[f64]) -> f64 {
    // The largest ratio, then one log (ln_up is increasing).
    let mut worst = 0.0f64;
    for (&hi, &lo) in hi.iter().zip(lo) {
        if hi == 0.0 {
            continue; // y is never produced
        }
        worst = worst.max(if lo == 0.0 { f64::INFINITY } else { hi / lo });
    }
    ln_of_ratio(worst, gamma(3))
}

/// One channel row folded into the per-output maxima and minima. A kernel of its own, never
/// inlined, so that a wasm engine optimises it during a page's first verify (see
/// `leakage::lift`).
#[inline(never)]
fn fold_row_extremes(hi: &mut [f64], lo: &mut [f64], row: &[f64]) {
    for ((h, l), &v) in hi.iter_mut().zip(lo.iter_mut()).zip(row) {
        *h = greatest(*h, v);
        *l = least(*l, v);
    }
}

/// An LDP from its largest ratio P(y|a)/P(y|b) (≥ 1, computed to relative error `rel`):
/// ln of it rounded up, 0 when no output is released (ratio 0). `ln_up` is increasing, so
/// one log of the largest ratio is the largest of the per-output bounds.
pub(crate) fn ln_of_ratio(worst: f64, rel: f64) -> f64 {
    if worst == 0.0 {
        0.0
    } else {
        ln_up(worst, rel).max(0.0)
    }
}

/// I(X;Y) = Σ_x P(x) Σ_y P(y|x) ln(P(y|x)/P(y)), in nats.
pub fn mutual_information_xy(prior: &[f64], p_y_given_x: &Matrix, p_y: &[f64]) -> f64 {
    let mut mi = 0.0;
    for (x, &px) in prior.iter().enumerate() {
        if px == 0.0 {
            continue;
        }
        for (y, &w) in p_y_given_x.row(x).iter().enumerate() {
            mi += px * xlogy_ratio(w, p_y[y]);
        }
    }
    mi.max(0.0)
}

/// Maximal leakage ln Σ_y max_{x: P(x)>0} P(y|x), rounded up.
pub fn maximal_leakage(prior: &[f64], p_y_given_x: &Matrix) -> f64 {
    let mut total = 0.0;
    for y in 0..p_y_given_x.cols() {
        let mut m = 0.0f64;
        for (x, &px) in prior.iter().enumerate() {
            if px > 0.0 {
                m = m.max(p_y_given_x.get(x, y));
            }
        }
        total += m;
    }
    ln_up(total, gamma(p_y_given_x.cols() + 1)).max(0.0)
}

#[cfg(test)]
mod tests;
