//! What a design costs, bounded before it runs: a front end may run a design whose bound
//! is small on the thread a page runs on, and every other one where nothing waits for it.
//!
//! The unit is a **cell**: one entry of an |X| × |X| channel or of the |S| × |X| joint,
//! each read or written by a fixed number of passes. Only designers whose every step is
//! such a pass have a bound; one that solves an LP or searches a polytope's vertices has
//! none (its pivots are not bounded by its size in any useful way).

use alloc::borrow::Cow;

use super::request::DesignRequest;
use super::rr::{eq19_is_lip, Objective};
use privlift::document::Matrix;
use privlift::param::Epsilon;

/// The methods [`design_cells`] may bound: for any other it is `None` whatever the request,
/// so that a caller need not read the request to know.
pub const BOUNDED_METHODS: [&str; 2] = ["krr", "rr-lip"];

/// An upper bound on the work of [`design_inputs`](super::request::design_inputs) of
/// `method` on `req`, in cells: |X|² + |S|·|X| (S = X for a prior), or `None` where no
/// bound is known before the design runs.
///
/// Bounded, as each of their steps is a fixed number of passes over those cells:
/// - `krr`: the k-RR channel and its utility (|X|² cells), the document's audit and its
///   check w.r.t. S (the structured `krr` kind: |X| + |S|·|X|, `privlift::verify::Work`);
/// - `rr-lip` with the `hit` objective (the default) where eq 19 is ε-LIP
///   ([`eq19_is_lip`]): the same passes over the eq-19 channel and the `rr_lip` kind.
///
/// `None`: every other method, `rr-lip` where it solves its LP, a multi-attribute joint,
/// and a request whose inputs cannot be read as the designer reads them (no prior nor
/// joint, both, a ragged joint, no valid ε for `rr-lip`). A bounded request may still be
/// refused by the designer (a prior that is no distribution): its checks are the same passes.
pub fn design_cells(method: &str, req: &DesignRequest) -> Option<u64> {
    let hit = req.objective.as_deref().is_none_or(|o| matches!(Objective::parse(o), Ok(Objective::Hit)));
    if !BOUNDED_METHODS.contains(&method) || (method == "rr-lip" && !hit) {
        return None;
    }
    if req.exact.is_some() || req.distortion.is_some() {
        return None;
    }
    // Sizes and P_X as the designer reads them (a prior as given, a joint's column sums),
    // without its labels: a request the designer would refuse is refused as soon there.
    let (ns, nx, p_x) = match (&req.prior, &req.joint) {
        (Some(prior), None) => (prior.p.len(), prior.p.len(), Cow::Borrowed(prior.p.as_slice())),
        (None, Some(joint)) if joint.attributes.is_none() => {
            let nx = joint.p_sx.first()?.len();
            let p_x = Matrix::from_rows("p_sx", &joint.p_sx, nx).ok()?.col_sums();
            (joint.p_sx.len(), nx, Cow::Owned(p_x))
        }
        _ => return None,
    };
    if method == "rr-lip" && !eq19_is_lip(&p_x, Epsilon::positive("epsilon", req.epsilon?).ok()?) {
        return None;
    }
    let (ns, nx) = (ns as u64, nx as u64);
    Some(nx * nx + ns * nx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> DesignRequest {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn closed_forms_are_bounded_by_their_cells() {
        let prior = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 1}"#;
        assert_eq!(design_cells("krr", &request(prior)), Some(9 + 9));
        // Eq 19 is ε-LIP at ε = 2: every P(x) ≥ 1/(1 + e²) ≈ 0.119.
        let eq19 = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 2}"#;
        assert_eq!(design_cells("rr-lip", &request(eq19)), Some(18));
        let hit = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 2, "objective": "hit"}"#;
        assert_eq!(design_cells("rr-lip", &request(hit)), Some(18));
        let joint = r#"{"joint": {"p_sx": [[0.1, 0.2, 0.1, 0.1], [0.2, 0.1, 0.1, 0.1]]}, "epsilon": 1}"#;
        assert_eq!(design_cells("krr", &request(joint)), Some(16 + 8));
    }

    #[test]
    fn an_lp_a_search_or_a_refusal_has_no_bound() {
        // ε = 1: 0.2 < 1/(1 + e), so rr-lip solves its LP.
        let lp = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 1}"#;
        assert_eq!(design_cells("rr-lip", &request(lp)), None);
        let mi = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 2, "objective": "mi"}"#;
        assert_eq!(design_cells("rr-lip", &request(mi)), None);
        for method in ["orr-lip", "linear-distance", "oue", "no-such-method"] {
            assert_eq!(design_cells(method, &request(lp)), None, "{method}");
        }
        for bad in [
            r#"{"epsilon": 1}"#,
            r#"{"prior": {"p": [0.5, 0.5]}, "joint": {"p_sx": [[0.5, 0.5]]}, "epsilon": 1}"#,
            r#"{"joint": {"p_sx": [[0.5, 0.2], [0.3]]}, "epsilon": 1}"#,
            r#"{"prior": {"p": [0.5, 0.5]}, "epsilon": 1, "exact": true}"#,
        ] {
            assert_eq!(design_cells("krr", &request(bad)), None, "{bad}");
        }
        assert_eq!(design_cells("rr-lip", &request(r#"{"prior": {"p": [0.5, 0.5]}}"#)), None);
        assert_eq!(design_cells("rr-lip", &request(r#"{"prior": {"p": [0.5, 0.5]}, "epsilon": -1}"#)), None);
    }

    #[test]
    fn a_prior_that_is_no_distribution_is_bounded_and_refused_by_the_designer() {
        let req = r#"{"prior": {"p": [0.5, 0.6]}, "epsilon": 1}"#;
        assert_eq!(design_cells("krr", &request(req)), Some(8));
        assert!(crate::request::design("krr", request(req)).is_err());
    }

    /// The bound's eq-19 test is the designer's: `rr-lip` is bounded exactly when it
    /// publishes the closed form (the `rr_lip` kind), never when it solves its LP, on
    /// priors and joints near the condition P(x) ≥ 1/(1 + e^ε).
    #[test]
    fn rr_lip_is_bounded_exactly_when_it_publishes_eq19() {
        use privlift::document::MechanismKind;
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut closed, mut lp) = (0, 0);
        for case in 0..120 {
            let k = 2 + case % 4;
            let w: alloc::vec::Vec<f64> = (0..2 * k).map(|_| 0.05 + next()).collect();
            let total: f64 = w.iter().sum();
            let p_sx: alloc::vec::Vec<alloc::vec::Vec<f64>> =
                w.chunks(k).map(|row| row.iter().map(|v| v / total).collect()).collect();
            let p_x: alloc::vec::Vec<f64> = (0..k).map(|x| p_sx[0][x] + p_sx[1][x]).collect();
            // ε near the condition's edge: 1/(1 + e^ε) = min P(x) at ε*.
            let min = p_x.iter().copied().fold(1.0, f64::min);
            let eps = libm::log((1.0 - min) / min) * (0.9 + 0.2 * next());
            let json = if case % 2 == 0 {
                alloc::format!(r#"{{"prior": {{"p": {p_x:?}}}, "epsilon": {eps}}}"#)
            } else {
                alloc::format!(r#"{{"joint": {{"p_sx": {p_sx:?}}}, "epsilon": {eps}}}"#)
            };
            let bounded = design_cells("rr-lip", &request(&json)).is_some();
            let Ok(doc) = crate::request::design("rr-lip", request(&json)) else {
                assert!(!bounded, "{json}: bounded, and refused");
                continue;
            };
            let eq19 = matches!(doc.mechanism(), MechanismKind::RrLip { .. });
            assert_eq!(bounded, eq19, "{json}");
            if eq19 {
                closed += 1;
            } else {
                lp += 1;
            }
        }
        assert!(closed > 20 && lp > 20, "{closed} closed forms, {lp} LPs");
    }
}
