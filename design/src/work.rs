//! What a design costs, bounded before it runs: a front end may run a design whose bound
//! is small on the thread a page runs on, and every other one where nothing waits for it.
//!
//! The unit is a **cell**: one entry of an |X| × |X| channel or of the |S| × |X| joint,
//! each read or written by a fixed number of passes. A designer that solves an LP has a
//! bound too where its passes around the LP are fixed: the LP's constraint matrix weighs
//! [`LP_NONZERO_CELLS`] a non-zero, and its pivots, which nothing bounds before the
//! simplex runs, are stopped at a deadline ([`within`]). So are the bases of a vertex
//! search: a polytope's vertices are not known until the search ends (the 5 × 17 joint of
//! the AORR benchmark has at most 2.4 million bases and visits a few thousand), so the
//! search reads the deadline as it goes, and what it finds in that time is all LP (22) is
//! built from. A fixed enumeration counts its candidate systems (one flop a cell).

use alloc::borrow::Cow;
use core::time::Duration;

use super::optimal_ldp;
use super::request::DesignRequest;
use super::rr::{eq19_is_lip, Objective};
use privlift::document::Matrix;
use privlift::param::Epsilon;

/// The methods [`design_bound`] may bound: for any other it is `None` whatever the request,
/// so that a caller need not read the request to know.
pub const BOUNDED_METHODS: [&str; 7] =
    ["krr", "rr-lip", "linear-tv", "linear-distance", "orr-lip", "orr-alip", "orr-ldp"];

/// The cells one non-zero of an LP's constraint matrix counts for: the simplex's time a
/// non-zero over its whole solve, against a closed form's time a cell. In wasm (Node 20,
/// Intel Xeon, 2 shared cores) `rr-lip`'s LP took 3.4–3.6 µs a non-zero (|X| = 8 and 16)
/// and a k-RR design 23–90 ns a cell (k = 256): 2⁷ cells.
pub const LP_NONZERO_CELLS: u64 = 1 << 7;

/// The passes over its |X|² channel `rr-lip`'s LP design makes besides the LP: the
/// solution's cleaning, its negligible outputs, the repair's bisection (64 mixtures, each
/// built and audited: [`super::rr`]), the utility and the audit of the published matrix.
pub const RR_LIP_LP_PASSES: u64 = 1 << 8;

/// The passes over its |S| · |X|² per-secret blocks a linear reduction (`linear-tv`,
/// `linear-distance` on |x − y|) makes: each secret's split, north-west plan, block and
/// check (10b), the induced channel, the utility and the audit of the per-secret document
/// (six passes a cell, weighed 6 by `privlift::verify`'s cost model: 2⁵ in all).
pub const LINEAR_PASSES: u64 = 1 << 5;

/// The passes over its |X|² + |S|·|X| cells an optimal design (`orr-*`) makes besides its
/// vertex search and its LP (22): the masses' least squares, the channel's assembly, and
/// up to eight audits of the published channel (`publish_channel` and its repair
/// mixtures), each a dozen passes: 2⁷.
pub const ORR_PASSES: u64 = 1 << 7;

/// What [`design_bound`] knows of a design before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// An upper bound on its work, in cells (its LP's pivots and its vertex search's bases
    /// aside).
    pub cells: u64,
    /// Whether it solves an LP or searches a polytope's vertices, whose pivots and bases
    /// stop at the deadline of [`within`]. A closed form (`false`) reads no deadline: it
    /// ends in its cells.
    pub timed: bool,
}

/// An upper bound on the work of [`design_inputs`](super::request::design_inputs) of
/// `method` on `req`, in cells, and whether it is timed, or `None` where no bound is known
/// before the design runs:
///
/// - `krr`: the k-RR channel and its utility (|X|² cells), the document's audit and its
///   check w.r.t. S (the structured `krr` kind: |X| + |S|·|X|, `privlift::verify::Work`):
///   |X|² + |S|·|X|;
/// - `rr-lip` with the `hit` objective (the default) where eq 19 is ε-LIP
///   ([`eq19_is_lip`]): the same passes over the eq-19 channel and the `rr_lip` kind;
///   where it is not, its LP over the |X|² entries of the channel (6|X|² + |X| non-zeros:
///   the rows, P_Y and two lift bounds a cell) and [`RR_LIP_LP_PASSES`] passes over them;
/// - `linear-tv`, and `linear-distance` with |x − y| (no `distortion`: on a line LP 12 is
///   solved in closed form, [`super::linear::distance_blocks`]): Prop 1's north-west plan
///   for every secret (Ding, Liu and Farokhi), |X|² + |S|·|X| cells for the distance and
///   P_X, and [`LINEAR_PASSES`] passes over the |S|·|X|² blocks;
/// - `orr-lip`, `orr-alip` (not `exact`): [`ORR_PASSES`] passes. Their vertex search (the
///   pivoting search, or the support enumeration it falls back to) stops at the deadline,
///   as an LP's pivots do, and LP (22) has a column of |X| non-zeros a vertex it found,
///   each found by at least [`flops_per_basis`](super::vertex::flops_per_basis) ≥ |X| flops: building it costs no more
///   than the search did;
/// - `orr-ldp`: the enumeration's [`optimal_ldp::candidates`] systems of (|S| + 1)³, its
///   de-duplication (at most candidates² comparisons of |X|) and post-check, LP (22) over
///   at most as many columns, and [`ORR_PASSES`] passes.
///
/// An LP's pivots and a vertex search's bases are not in the bound: such a design is
/// [`Bound::timed`], to be run [`within`] a deadline; the others are not.
///
/// `None`: every other method, `rr-lip` with another objective, a distortion (its LP
/// may run), a multi-attribute joint, and a request whose inputs cannot be read as the
/// designer reads them (no prior nor joint, both, a ragged joint, no valid ε for `rr-lip`,
/// a prior for a linear reduction). A bounded request may still be refused by the
/// designer (a prior that is no distribution): its checks are the same passes.
pub fn design_bound(method: &str, req: &DesignRequest) -> Option<Bound> {
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
        (Some(prior), None) if !method.starts_with("linear-") => {
            (prior.p.len(), prior.p.len(), Cow::Borrowed(prior.p.as_slice()))
        }
        (None, Some(joint)) if joint.attributes.is_none() => {
            let nx = joint.p_sx.first()?.len();
            let p_x = Matrix::from_rows("p_sx", &joint.p_sx, nx).ok()?.col_sums();
            (joint.p_sx.len(), nx, Cow::Owned(p_x))
        }
        _ => return None,
    };
    // As floats, so that no product overflows; `as u64` saturates.
    let (s, x) = (ns as f64, nx as f64);
    let closed_form = x * x + s * x;
    let lp_nonzeros = |nonzeros: f64| LP_NONZERO_CELLS as f64 * nonzeros;
    let orr_passes = ORR_PASSES as f64 * closed_form;
    let (cells, timed) = match method {
        "krr" => (closed_form, false),
        "rr-lip" if eq19_is_lip(&p_x, Epsilon::positive("epsilon", req.epsilon?).ok()?) => (closed_form, false),
        "rr-lip" => (closed_form + RR_LIP_LP_PASSES as f64 * x * x + lp_nonzeros(6.0 * x * x + x), true),
        "linear-tv" | "linear-distance" => (closed_form + LINEAR_PASSES as f64 * s * x * x, false),
        "orr-lip" | "orr-alip" => (orr_passes, true),
        "orr-ldp" => {
            let candidates = optimal_ldp::candidates(ns, nx) as f64;
            let solves = candidates * (s + 1.0) * (s + 1.0) * (s + 1.0);
            let checks = candidates * candidates * x + candidates * s * x;
            (solves + checks + candidates * x + lp_nonzeros(candidates * x) + orr_passes, true)
        }
        _ => return None,
    };
    Some(Bound { cells: cells as u64, timed })
}

/// Runs `design` with every LP it solves and every vertex search it makes stopped
/// `lp_time` from now: `None` when one reached that deadline (the design is then to be run
/// again where time does not matter), else the design's result. A design that ends in time
/// is the same design as without a deadline, bit for bit. With [`design_bound`], the time a
/// bounded design takes: its cells, and at most `lp_time` of pivots and bases.
pub fn within<T>(lp_time: Duration, design: impl FnOnce() -> T) -> Option<T> {
    super::deadline::by_deadline(lp_time, design)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> DesignRequest {
        serde_json::from_str(json).unwrap()
    }

    fn design_cells(method: &str, req: &DesignRequest) -> Option<u64> {
        design_bound(method, req).map(|b| b.cells)
    }

    /// rr-lip's bound over |X| = `nx`, |S| = `ns` where it solves its LP.
    fn rr_lip_lp(ns: u64, nx: u64) -> u64 {
        nx * nx + ns * nx + RR_LIP_LP_PASSES * nx * nx + LP_NONZERO_CELLS * (6 * nx * nx + nx)
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
        // A linear reduction's blocks, |S|·|X|² cells, each read by its passes: LP 12 on
        // |x − y| is the north-west plan of linear-tv.
        let joint = r#"{"joint": {"p_sx": [[0.1, 0.2, 0.1, 0.1], [0.2, 0.1, 0.1, 0.1]]}, "alpha": 0.5}"#;
        for method in ["linear-tv", "linear-distance"] {
            assert_eq!(design_cells(method, &request(joint)), Some(16 + 8 + LINEAR_PASSES * 2 * 4 * 4), "{method}");
        }
    }

    #[test]
    fn an_lp_counts_its_non_zeros_and_its_passes() {
        // ε = 1: 0.2 < 1/(1 + e), so rr-lip solves its LP.
        let lp = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 1}"#;
        assert_eq!(design_cells("rr-lip", &request(lp)), Some(rr_lip_lp(3, 3)));
        // Each LP weighs far more than the closed form over the same cells.
        assert!(rr_lip_lp(3, 3) > 100 * 18);
    }

    #[test]
    fn a_search_another_objective_or_a_refusal_has_no_bound() {
        let lp = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 1}"#;
        let mi = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 2, "objective": "mi"}"#;
        assert_eq!(design_cells("rr-lip", &request(mi)), None);
        for method in ["srr", "watchdog", "linear-markov", "oue", "no-such-method"] {
            assert_eq!(design_cells(method, &request(lp)), None, "{method}");
        }
        // A linear reduction reads a joint, and with a distortion may solve LP (12) or (10).
        for method in ["linear-tv", "linear-distance"] {
            assert_eq!(design_cells(method, &request(r#"{"prior": {"p": [0.5, 0.5]}, "alpha": 0.5}"#)), None);
        }
        let d =
            r#"{"joint": {"p_sx": [[0.25, 0.25], [0.25, 0.25]]}, "alpha": 0.5, "distortion": {"d": [[0, 1], [1, 0]]}}"#;
        assert_eq!(design_cells("linear-distance", &request(d)), None);
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

    /// The bound's eq-19 test is the designer's: `rr-lip` is bounded as a closed form
    /// exactly when it publishes the closed form (the `rr_lip` kind), and counts its LP
    /// exactly when it solves one, on priors and joints near the condition
    /// P(x) ≥ 1/(1 + e^ε).
    #[test]
    fn rr_lip_counts_an_lp_exactly_when_it_solves_one() {
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
            let (json, ns) = if case % 2 == 0 {
                (alloc::format!(r#"{{"prior": {{"p": {p_x:?}}}, "epsilon": {eps}}}"#), k)
            } else {
                (alloc::format!(r#"{{"joint": {{"p_sx": {p_sx:?}}}, "epsilon": {eps}}}"#), 2)
            };
            let cells = design_cells("rr-lip", &request(&json)).expect("rr-lip with the hit objective is bounded");
            let doc = crate::request::design("rr-lip", request(&json)).expect("designed");
            let eq19 = matches!(doc.mechanism(), MechanismKind::RrLip { .. });
            let (ns, nx) = (ns as u64, k as u64);
            assert_eq!(cells, if eq19 { nx * nx + ns * nx } else { rr_lip_lp(ns, nx) }, "{json}");
            if eq19 {
                closed += 1;
            } else {
                lp += 1;
            }
        }
        assert!(closed > 20 && lp > 20, "{closed} closed forms, {lp} LPs");
    }

    /// The optimal designs by vertex search count their passes, the search stopped at the
    /// deadline; `orr-ldp` counts its candidate systems; an `exact` design is never bounded.
    #[test]
    fn optimal_designs_count_their_passes_or_their_enumeration() {
        let p_sx = "[[0.1, 0.05, 0.1, 0.15, 0.1], [0.1, 0.15, 0.05, 0.1, 0.1]]";
        let lip = alloc::format!(r#"{{"joint": {{"p_sx": {p_sx}}}, "epsilon": 1}}"#);
        // The passes over 25 + 10 cells.
        assert_eq!(design_cells("orr-lip", &request(&lip)), Some(ORR_PASSES * 35));
        let alip = alloc::format!(r#"{{"joint": {{"p_sx": {p_sx}}}, "eps_l": 1, "eps_u": 2}}"#);
        assert_eq!(design_cells("orr-alip", &request(&alip)), Some(ORR_PASSES * 35));
        // 5·2·2 + 10·1·4 = 60 systems of 3³, their comparisons and post-checks.
        let ldp = 60 * 27 + 60 * 60 * 5 + 60 * 2 * 5 + 60 * 5 * (1 + LP_NONZERO_CELLS) + ORR_PASSES * 35;
        assert_eq!(design_cells("orr-ldp", &request(&lip)), Some(ldp));
        assert!(ldp < 1 << 17);
        // The AORR benchmark's 5 × 17 joint: 2⁷ passes over 289 + 85 cells.
        let aorr = alloc::format!(r#"{{"joint": {{"p_sx": {:?}}}, "eps_l": 0.25, "eps_u": 0.25}}"#, aorr_joint());
        assert_eq!(design_cells("orr-alip", &request(&aorr)), Some(ORR_PASSES * (289 + 85)));
        let exact = alloc::format!(r#"{{"joint": {{"p_sx": {p_sx}}}, "epsilon": 1, "exact": true}}"#);
        assert_eq!(design_cells("orr-lip", &request(&exact)), None);
    }

    /// A 5 × 17 joint with no two entries alike (the AORR benchmark's size).
    fn aorr_joint() -> alloc::vec::Vec<alloc::vec::Vec<f64>> {
        let w = |s: usize, x: usize| (1 + (7 * s + 3 * x) % 11 + x % 3) as f64;
        let total: f64 = (0..5).flat_map(|s| (0..17).map(move |x| w(s, x))).sum();
        (0..5).map(|s| (0..17).map(|x| w(s, x) / total).collect()).collect()
    }

    /// A design within a deadline its LP cannot meet is `None`; within one it meets, the
    /// same document as without a deadline; a closed form never reads the deadline.
    #[test]
    fn within_a_deadline_an_lp_ends_or_is_given_up() {
        let lp = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 1}"#;
        let rr_lip = crate::request::design("rr-lip", request(lp)).unwrap();
        assert!(within(Duration::ZERO, || crate::request::design("rr-lip", request(lp))).is_none());
        let timed = within(Duration::from_secs(60), || crate::request::design("rr-lip", request(lp)));
        assert_eq!(timed.unwrap().unwrap(), rr_lip);
        // LP (12) under a metric not on a line (the discrete one): solved by microlp.
        let discrete = r#""distortion": {"d": [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]}"#;
        let joint = alloc::format!(
            r#"{{"joint": {{"p_sx": [[0.1, 0.2, 0.1, 0.1], [0.2, 0.1, 0.1, 0.1]]}}, "alpha": 0.5, {discrete}}}"#
        );
        assert!(within(Duration::ZERO, || crate::request::design("linear-distance", request(&joint))).is_none());
        let free = crate::request::design("linear-distance", request(&joint)).unwrap();
        let timed = within(Duration::from_secs(60), || crate::request::design("linear-distance", request(&joint)));
        assert_eq!(timed.unwrap().unwrap(), free);
        // LP (22) of the optimal designs: this crate's simplex reads the same deadline.
        let p_sx = r#"{"joint": {"p_sx": [[0.1, 0.05, 0.1, 0.15, 0.1], [0.1, 0.15, 0.05, 0.1, 0.1]]}, "epsilon": 1}"#;
        for method in ["orr-lip", "orr-ldp"] {
            assert!(within(Duration::ZERO, || crate::request::design(method, request(p_sx))).is_none(), "{method}");
            let free = crate::request::design(method, request(p_sx)).unwrap();
            let timed = within(Duration::from_secs(60), || crate::request::design(method, request(p_sx)));
            assert_eq!(timed.unwrap().unwrap(), free, "{method}");
        }
        // The vertex search reads it too: a 5 × 17 AORR's search of thousands of bases.
        let aorr = alloc::format!(r#"{{"joint": {{"p_sx": {:?}}}, "eps_l": 0.5, "eps_u": 0.5}}"#, aorr_joint());
        let free = crate::request::design("orr-alip", request(&aorr)).unwrap();
        let timed = within(Duration::from_secs(60), || crate::request::design("orr-alip", request(&aorr)));
        assert_eq!(timed.unwrap().unwrap(), free);
        assert!(within(Duration::ZERO, || crate::request::design("orr-alip", request(&aorr))).is_none());
        let krr = r#"{"prior": {"p": [0.5, 0.3, 0.2]}, "epsilon": 1}"#;
        assert!(within(Duration::ZERO, || crate::request::design("krr", request(krr))).unwrap().is_ok());
        // So is LP (12) on |x − y|: the north-west plan.
        let line = r#"{"joint": {"p_sx": [[0.1, 0.2, 0.1, 0.1], [0.2, 0.1, 0.1, 0.1]]}, "alpha": 0.5}"#;
        assert!(within(Duration::ZERO, || crate::request::design("linear-distance", request(line))).unwrap().is_ok());
        // The deadline is gone after the call: the same LP then solves.
        assert!(within(Duration::ZERO, || ()).is_some());
        assert_eq!(crate::request::design("rr-lip", request(lp)).unwrap(), rr_lip);
    }

    /// A bound that is not timed is a design no deadline stops (a front end may run it
    /// without one); the LPs and vertex searches are timed.
    #[test]
    fn untimed_bounds_are_designs_no_deadline_stops() {
        let joint = r#"{"joint": {"p_sx": [[0.1, 0.05, 0.1, 0.15, 0.1], [0.1, 0.15, 0.05, 0.1, 0.1]]}"#;
        let prior = r#"{"prior": {"p": [0.5, 0.3, 0.2]}"#;
        for (method, json, timed) in [
            ("krr", alloc::format!(r#"{prior}, "epsilon": 1}}"#), false),
            ("krr", alloc::format!(r#"{joint}, "epsilon": 1}}"#), false),
            ("rr-lip", alloc::format!(r#"{prior}, "epsilon": 2}}"#), false), // eq 19
            ("rr-lip", alloc::format!(r#"{prior}, "epsilon": 1}}"#), true),
            ("linear-tv", alloc::format!(r#"{joint}, "alpha": 0.5}}"#), false),
            ("linear-distance", alloc::format!(r#"{joint}, "alpha": 0.5}}"#), false),
            ("orr-lip", alloc::format!(r#"{joint}, "epsilon": 1}}"#), true),
            ("orr-alip", alloc::format!(r#"{joint}, "eps_l": 1, "eps_u": 2}}"#), true),
            ("orr-ldp", alloc::format!(r#"{joint}, "epsilon": 1}}"#), true),
        ] {
            let bound = design_bound(method, &request(&json)).expect("bounded");
            assert_eq!(bound.timed, timed, "{method} {json}");
            let stopped = within(Duration::ZERO, || crate::request::design(method, request(&json))).is_none();
            assert_eq!(stopped, timed, "{method} {json}: stopped by a deadline already passed");
        }
    }
}
