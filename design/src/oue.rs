//! Optimal unary encoding (Wang et al. 2017; Jiang et al. V-A (e)).

use super::publication::{publish, Audited, Draft};
use super::utility::{entropy, Utility};
use super::Source;
use privlift::document::{Claims, Document, MechanismKind};
use privlift::error::Result;
use privlift::leakage::UNARY_ENUMERATION_LIMIT;
use privlift::param::{Epsilon, Probability};

/// OUE's flip probabilities at ε: q01 = 1/(e^ε + 1) (a 0 becomes 1), q10 = 1/2.
pub fn oue_params(epsilon: Epsilon) -> (f64, f64) {
    let eps = epsilon.get();
    (1.0 / (libm::exp(eps) + 1.0), 0.5)
}

/// Optimal unary encoding, ε-LDP.
///
/// # Privacy
/// P(y|x)/P(y|x') ≤ [p(1−q)]/[q(1−p)] with p = 1/2, q = 1/(e^ε+1), which is e^ε: claims
/// `ldp_x = ε`, plus the audited LIP (and LDP w.r.t. S for a joint).
///
/// Utility: `mi_xy`/`nmi` are exact for |X| ≤ 14 (the audit enumerates the 2^|X|
/// reports) and omitted above; `tv`, `hamming` and distortions are undefined for a
/// bit-vector report and omitted.
pub fn oue(source: &Source, epsilon: Epsilon, id: &str) -> Result<Document> {
    let (q01, q10) = oue_params(epsilon);
    let (q01, q10) = (Probability::new("q01", q01)?, Probability::new("q10", q10)?);
    let k = source.labels().len();
    let mi = if k <= UNARY_ENUMERATION_LIMIT {
        let p_sx = Source::prior(source.labels().clone(), source.p_x())?.p_sx();
        Some(privlift::leakage::audit_unary(&p_sx, q01, q10, 2.0)?.mi_xy)
    } else {
        None
    };
    let h = entropy(&source.p_x());
    let utility = Utility {
        mi_xy: mi,
        nmi: mi.map(|m| if h > 0.0 { (m / h).min(1.0) } else { 1.0 }),
        tv: None,
        hamming: None,
        expected_distortion: None,
        mae: None,
    };
    let claims = Claims { ldp_x: Some(epsilon.into()), ..Claims::default() };
    let audited = Audited { lip: true, ldp: matches!(source, Source::Joint { .. }), ..Audited::default() };
    publish(Draft { id, source, output: None, claims, audited }, MechanismKind::Unary { q01, q10 }, utility)
}
