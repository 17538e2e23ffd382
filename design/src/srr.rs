//! Subset random response, SRR (Zarrabian, Ding, Sadeghi Algorithm 2, eqs 15–26): the
//! optimal random response of [`super::orr`] applied separately to each group of a
//! partition of the high-risk symbols X_H (from Algorithm 1), low-risk symbols released
//! as themselves. Each group's LP has only that group's vertices, so the work grows with
//! the largest group instead of with |X|.
//!
//! **Acceptance test.** Algorithm 2 accepts a group when its polytope Π_i (eq 21) is
//! non-empty. That does not make LP (22) feasible: it also needs P_X restricted to the
//! group in the cone of Π_i's vertices (e.g. Π_i = {e_x} for a low-lift x, while P_X has
//! mass on the other symbols of the group). We test the feasibility of (22) itself.
//! Since every column sums to 1, Σ_k β_k v_k = P_X|_{X_i} forces Σ β = P(X_i), so (22)
//! is feasible **iff the merged posterior P_X|_{X_i} / P(X_i) lies in Π_i, i.e. iff the
//! group merged into one output is private** (pinned in `design/tests/optimal.rs`).
//!
//! **Observation.** Every group Algorithm 1 returns is private when merged, and its
//! merged posterior P_X|_{X_i} / P(X_i) is then a point of Π_i that makes (22)
//! feasible on its own; so on Algorithm 1's partition no fall-back (lines 7–14) is
//! ever needed, and SRR is never worse than subset merging (a test pins both). The
//! fall-backs matter for other partitions ([`srr_with_partition`]) and numerical edge
//! cases, and are implemented as printed: join the next group of the partition (line 9),
//! else the previously accepted group (line 13); if one group holding all of X_H is
//! still infeasible, fall back to subset merging (lines 20–21), which then fails with
//! `infeasible` if no private watchdog exists.

use alloc::vec::Vec;

use super::lift::{JointView, Notion};
use super::orr::{assemble, optimal_response, Response};
use super::publication::{publish_channel, srr_form, with_extra, Audited, Draft};
use super::utility::released_utility;
use super::watchdog::{merging_document, output_labels, released_outputs, subset_merging_partition, Partition};
use super::Source;
use privlift::document::Document;
use privlift::error::{Error, Result};

/// SRR for LIP or ALIP (Algorithm 2 on the partition of Algorithm 1).
///
/// # Privacy
/// Claims `lip` or `alip` w.r.t. S. Each output is a low-risk symbol (eq 6) or a vertex
/// of a group's polytope (eq 21), whose lifts meet the design budget
/// (`lift::design_budget`); the published document is re-audited.
///
/// # Errors
/// `invalid_argument` for LDP (eq 21 is a lift polytope) or a bad budget; `infeasible`
/// if no private watchdog exists.
pub fn srr(source: &Source, notion: Notion, id: &str) -> Result<Document> {
    notion.check()?;
    not_a_polytope(&notion)?;
    let view = JointView::new(&source.p_sx());
    let partition = subset_merging_partition(&view, &notion)?;
    srr_with_partition(source, notion, &partition, id)
}

/// SRR needs eq 21's lift polytope: LIP or ALIP. LDP is not a lift interval, and the
/// lift-measure notions (ℓ1, χ², α-lift) are not convex in the channel (Zarrabian et al.
/// Sec. VI-B: "ORR is not applicable to these measures").
fn no_polytope(notion: &Notion) -> Error {
    Error::invalid(
        "notion",
        alloc::format!(
            "subset random response is implemented for lip and alip, not {} (use subset-merging)",
            notion.name()
        ),
    )
}

fn not_a_polytope(notion: &Notion) -> Result<()> {
    match notion.lift_bounds() {
        Some(_) => Ok(()),
        None => Err(no_polytope(notion)),
    }
}

/// SRR on a given partition (X_L, groups of X_H), with Algorithm 2's fall-backs.
///
/// # Errors
/// As [`srr`]; `invalid_argument` if the partition does not cover X (inputs with
/// P(x) = 0 aside) exactly once.
pub fn srr_with_partition(source: &Source, notion: Notion, partition: &Partition, id: &str) -> Result<Document> {
    notion.check()?;
    not_a_polytope(&notion)?;
    let Some((ln_lo, ln_hi)) = notion.lift_bounds() else { return Err(no_polytope(&notion)) };
    let view = JointView::new(&source.p_sx());
    check_partition(&view, partition)?;
    // Inputs with P(x) = 0 cannot enter an LP (they carry no mass); they are left to
    // `assemble`, which gives them P_Y.
    let mut pending: Vec<Vec<usize>> = partition
        .groups
        .iter()
        .map(|g| g.iter().copied().filter(|&x| view.p_x[x] > 0.0).collect::<Vec<_>>())
        .filter(|g: &Vec<usize>| !g.is_empty())
        .collect();
    pending.reverse(); // pop() takes X_1 first
    let mut accepted: Vec<(Vec<usize>, Response)> = Vec::new();
    let mut failed: Option<Vec<usize>> = None;
    while let Some(mut current) = pending.pop() {
        loop {
            current.sort_unstable();
            match optimal_response(&view, &current, ln_lo, ln_hi) {
                Ok(r) => {
                    accepted.push((current, r));
                    break;
                }
                Err(Error::Infeasible { .. }) => {
                    if let Some(next) = pending.pop() {
                        current.extend(next); // line 9
                    } else if let Some((prev, _)) = accepted.pop() {
                        current.extend(prev); // line 13
                    } else {
                        failed = Some(current);
                        break;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        if failed.is_some() {
            break;
        }
    }
    if failed.is_some() {
        // Lines 20–21: no feasible random response on all of X_H.
        let merged = subset_merging_partition(&view, &notion)?;
        let doc = merging_document(source, &notion, &merged, id)?;
        return Ok(with_extra(doc, alloc::vec![("fallback", "subset-merging".into())]));
    }
    let w = assemble(&view, &partition.low_risk, &accepted)?;
    let counts: Vec<(Vec<usize>, usize)> = accepted.iter().map(|(g, r)| (g.clone(), r.q.len())).collect();
    let output = output_labels(source.labels(), &partition.low_risk, &counts)?;
    let released = released_outputs(&partition.low_risk, w.cols());
    let p_x = source.p_x();
    let doc = publish_channel(
        Draft { id, source, output: Some(output), claims: notion.claims(), audited: Audited::default() },
        w,
        |w| srr_form(w, &partition.low_risk, &counts),
        |w| released_utility(&p_x, w, &released),
    )?;
    let groups: Vec<&Vec<usize>> = accepted.iter().map(|(g, _)| g).collect();
    let vertices: Vec<usize> = accepted.iter().map(|(_, r)| r.vertices).collect();
    Ok(with_extra(
        doc,
        alloc::vec![
            ("groups", serde_json::json!(groups)),
            ("low_risk", serde_json::json!(partition.low_risk)),
            ("vertices", serde_json::json!(vertices)),
        ],
    ))
}

fn check_partition(view: &JointView, p: &Partition) -> Result<()> {
    let mut seen = alloc::vec![0u32; view.nx()];
    for &x in p.low_risk.iter().chain(p.groups.iter().flatten()) {
        match seen.get_mut(x) {
            Some(c) => *c += 1,
            None => return Err(bad_partition(alloc::format!("input {x} is out of range"))),
        }
    }
    if let Some(x) = (0..view.nx()).find(|&x| seen[x] != 1) {
        return Err(bad_partition(alloc::format!("input {x} appears {} times", seen[x])));
    }
    Ok(())
}

fn bad_partition(reason: alloc::string::String) -> Error {
    Error::invalid("partition", reason)
}
