//! Shared builders for integration tests.
#![allow(dead_code)]

use serde_json::{json, Value};

pub mod corpus;
pub mod counting;
pub mod open_props;
pub mod receipt_props;

/// k-ary randomised response at ε (Jiang et al. V-A (d)): e^ε/(e^ε+k−1) on the diagonal.
pub fn krr_matrix(k: usize, eps: f64) -> Vec<Vec<f64>> {
    let e = eps.exp();
    let d = e / (e + k as f64 - 1.0);
    let o = 1.0 / (e + k as f64 - 1.0);
    (0..k).map(|x| (0..k).map(|y| if x == y { d } else { o }).collect()).collect()
}

/// A valid k-RR document with uniform prior claiming ε-LDP w.r.t. X.
pub fn krr_doc(k: usize, eps: f64) -> Value {
    json!({
        "format": "privlift-mechanism",
        "version": 1,
        "id": format!("krr-{k}"),
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": vec![1.0 / k as f64; k],
        "mechanism": {"kind": "matrix", "p_y_given_x": krr_matrix(k, eps)},
        "claims": {"ldp_x": eps, "lip": eps}
    })
}

/// Every row of every section of `r` lies within that section's stated bounds (a row of
/// prior 0, which no user can enter and no audit weighs, has lift exactly 0 by convention).
pub fn lifts_within_bounds(r: &privlift::Receipt) -> bool {
    std::iter::once(&r.input).chain(r.secret.as_ref()).all(|s| {
        s.entries.iter().all(|e| {
            if e.prior == 0.0 {
                e.lift == 0.0
            } else {
                e.lift >= s.min_lift_bound && e.lift <= s.max_lift_bound
            }
        })
    })
}

/// The channel P(Y|X) a discrete document states, as dense rows, expanded from its JSON
/// by hand for every channel kind (`matrix`, `krr`, `rr_lip`, `merge`, `sparse`): an
/// oracle independent of the library's own reading.
pub fn channel_rows(doc: &Value) -> Vec<Vec<f64>> {
    let nx = doc["labels"].as_array().expect("labels").len();
    expand(&doc["mechanism"], nx)
}

fn expand(m: &Value, nx: usize) -> Vec<Vec<f64>> {
    let num = |v: &Value| v.as_f64().expect("a number");
    match m["kind"].as_str().expect("a kind") {
        "matrix" => m["p_y_given_x"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(num).collect())
            .collect(),
        "krr" | "rr_lip" => {
            let keep = match (m.get("keep"), m.get("epsilon")) {
                (Some(k), _) => num(k),
                (None, Some(e)) => (num(e).exp() - 1.0) / (num(e).exp() + nx as f64 - 1.0),
                _ => panic!("krr without keep or epsilon"),
            };
            let mixing: Vec<f64> = match m.get("mixing") {
                Some(v) => v.as_array().unwrap().iter().map(num).collect(),
                None => vec![1.0 / nx as f64; nx],
            };
            (0..nx)
                .map(|x| (0..nx).map(|y| (1.0 - keep) * mixing[y] + if x == y { keep } else { 0.0 }).collect())
                .collect()
        }
        "sparse" => {
            let ny = m["outputs"].as_u64().unwrap() as usize;
            m["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let mut row = vec![0.0; ny];
                    for e in r.as_array().unwrap() {
                        row[e[0].as_u64().unwrap() as usize] = num(&e[1]);
                    }
                    row
                })
                .collect()
        }
        "srr" => {
            let low: Vec<usize> =
                m["low_risk"].as_array().map_or(vec![], |a| a.iter().map(|x| x.as_u64().unwrap() as usize).collect());
            let groups = m["groups"].as_array().unwrap();
            let ny = low.len() + groups.iter().map(|g| g["p_y_given_x"][0].as_array().unwrap().len()).sum::<usize>();
            let mut rows: Vec<Option<Vec<f64>>> = vec![None; nx];
            for (i, &x) in low.iter().enumerate() {
                let mut r = vec![0.0; ny];
                r[i] = 1.0;
                rows[x] = Some(r);
            }
            let mut y0 = low.len();
            for g in groups {
                let block = g["p_y_given_x"].as_array().unwrap();
                for (j, x) in g["inputs"].as_array().unwrap().iter().enumerate() {
                    let mut r = vec![0.0; ny];
                    for (y, p) in block[j].as_array().unwrap().iter().enumerate() {
                        r[y0 + y] = num(p);
                    }
                    rows[x.as_u64().unwrap() as usize] = Some(r);
                }
                y0 += block[0].as_array().unwrap().len();
            }
            let others: Option<Vec<f64>> = m.get("others").map(|o| o.as_array().unwrap().iter().map(num).collect());
            rows.into_iter().map(|r| r.or_else(|| others.clone()).expect("an uncovered input has `others`")).collect()
        }
        "merge" => {
            let blocks: Vec<usize> =
                m["blocks"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as usize).collect();
            let nb = blocks.iter().max().map_or(0, |b| b + 1);
            let inner = match m.get("inner") {
                Some(i) => expand(i, nb),
                None => (0..nb).map(|b| (0..nb).map(|y| if y == b { 1.0 } else { 0.0 }).collect()).collect(),
            };
            blocks.iter().map(|&b| inner[b].clone()).collect()
        }
        k => panic!("no channel for kind {k}"),
    }
}
