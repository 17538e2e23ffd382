//! Structured documents: small matrices, priors, joints, claims and policies built from
//! the fuzz bytes with arbitrary f64s (NaN, ±inf, negatives, subnormals, raw bit
//! patterns) next to nearly valid values (rows normalised, then nudged by 1e-16..2e-9),
//! and claims / policy limits placed just around the audited leakage. Goes through
//! `privlift::document::DocumentJson` (its secret from JSON: a non-finite joint entry
//! ends the case), `Document::from_wire` and `Document::with_claims` (the claims as
//! `Budget`s: a NaN or negative one is no claim); same properties as `document` (see
//! common.rs), with a fuzzed `Policy` (its limits `Budget`s likewise: a NaN or negative
//! one is no limit).
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use privlift::document::{BpLip, Claims, DocumentJson, LabelJson, Labels, TwoSided, FORMAT, VERSION};
use privlift::param::Budget;
use privlift::{Document, Leakage, Policy};

mod common;

const SPECIAL: [f64; 22] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    f64::MIN_POSITIVE,    // smallest normal
    5e-324,               // smallest subnormal
    2.2250738585072e-309, // a subnormal
    -5e-324,
    -1e-300,
    1e-300,
    1.0,
    0.5,
    f64::MAX,
    f64::EPSILON,
    1e-9,
    1.0 + 1e-9,
    1.0 - 1e-9,
    2.0,
    -1.0,
    1e300,
    0.1,
];

/// Any f64: a special value, raw bits, or a small ratio.
fn any_f64(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => SPECIAL[u.choose_index(SPECIAL.len())?],
        1 => f64::from_bits(u.arbitrary()?),
        2 => u.arbitrary::<u8>()? as f64 / 255.0,
        _ => u.arbitrary::<u16>()? as f64 / 1000.0,
    })
}

/// A non-negative weight: usually a small integer, sometimes zero, tiny or subnormal.
fn weight(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => 0.0,
        1 => 5e-324,
        2 => 1e-300,
        3 => 1e-12,
        4 => f64::from_bits(u.arbitrary::<u64>()? & 0x7fef_ffff_ffff_ffff),
        _ => u.arbitrary::<u8>()? as f64,
    })
}

/// A corruption of an otherwise valid vector (maybe none).
fn corrupt(u: &mut Unstructured, v: &mut [f64]) -> Result<()> {
    if v.is_empty() {
        return Ok(());
    }
    match u.int_in_range(0u8..=7)? {
        0 => {
            let i = u.choose_index(v.len())?;
            v[i] = any_f64(u)?;
        }
        1 => {
            let i = u.choose_index(v.len())?;
            let d = [1e-16, 1e-12, 1e-10, 9.9e-10, 1e-9, 1.01e-9, 2e-9][u.choose_index(7)?];
            v[i] += if u.arbitrary()? { d } else { -d };
        }
        _ => {}
    }
    Ok(())
}

/// A probability vector of length n: normalised weights, a k-RR-like row, or raw f64s.
fn row(u: &mut Unstructured, n: usize, diag: usize) -> Result<Vec<f64>> {
    let mut v = match u.int_in_range(0u8..=5)? {
        0 => (0..n).map(|_| any_f64(u)).collect::<Result<Vec<_>>>()?,
        1 | 2 => {
            // k-RR row with an arbitrary ε (incl. huge, negative, NaN) in nats.
            let eps = if u.arbitrary()? { any_f64(u)? } else { u.arbitrary::<u8>()? as f64 / 32.0 };
            let e = eps.exp();
            let d = e / (e + n as f64 - 1.0);
            let o = 1.0 / (e + n as f64 - 1.0);
            (0..n).map(|y| if y == diag % n.max(1) { d } else { o }).collect()
        }
        _ => {
            let w = (0..n).map(|_| weight(u)).collect::<Result<Vec<_>>>()?;
            let s: f64 = w.iter().sum();
            w.into_iter().map(|x| x / s).collect()
        }
    };
    corrupt(u, &mut v)?;
    Ok(v)
}

fn labels(u: &mut Unstructured, n: usize, prefix: &str) -> Result<Labels> {
    let mut l: Vec<LabelJson> = (0..n).map(|i| LabelJson::Text(format!("{prefix}{i}"))).collect();
    if n > 0 {
        match u.int_in_range(0u8..=15)? {
            0 => {
                let i = u.choose_index(n)?;
                l[i] = LabelJson::Text(format!("{prefix}0")); // maybe a duplicate
            }
            1 => {
                let i = u.choose_index(n)?;
                l[i] = LabelJson::Number(serde_json::Number::from(u.arbitrary::<u8>()?));
            }
            2 => {
                l.pop();
            }
            _ => {}
        }
    }
    let mut out = Labels::new();
    for label in l {
        out.push_json("labels", label).expect("a few short labels");
    }
    Ok(out)
}

/// A budget: arbitrary, or the audited value times a factor very close to 1.
fn budget(u: &mut Unstructured, audited: Option<f64>) -> Result<Option<f64>> {
    Ok(match u.int_in_range(0u8..=4)? {
        0 => None,
        1 => Some(any_f64(u)?),
        _ => audited.map(|a| {
            let f = [1.0, 1.0 + 1e-9, 1.0 - 1e-9, 1.0 + 1e-12, 1.0 - 1e-12, 1.0 + 2e-9, 0.5, 2.0, 1.0 + 1e-6];
            let k = u.choose_index(f.len()).unwrap_or(0);
            let add = [0.0, 1e-12, -1e-12, 5e-13][u.choose_index(4).unwrap_or(0)];
            a * f[k] + add
        }),
    })
}

/// A claimed budget or a limit: [`budget`] as a [`Budget`] (none for a NaN or a negative
/// number).
fn claimed(u: &mut Unstructured, audited: Option<f64>) -> Result<Option<Budget>> {
    Ok(budget(u, audited)?.and_then(|v| Budget::new("claim", v).ok()))
}

fn bp_lip(u: &mut Unstructured, prior: &[f64], l: Option<&Leakage>) -> Result<Option<BpLip>> {
    if u.arbitrary::<u8>()? >= 48 {
        return Ok(None);
    }
    let n = u.int_in_range(0usize..=3)?;
    let mut priors = (0..n).map(|i| row(u, prior.len(), i)).collect::<Result<Vec<_>>>()?;
    if u.arbitrary()? {
        // The document's own prior (then the claim also bounds the receipt), maybe nudged.
        let mut p = prior.to_vec();
        if u.arbitrary()? && !p.is_empty() {
            p[0] += [1e-13, -1e-13, 1e-12, 2e-12][u.choose_index(4)?];
        }
        priors.push(p);
    }
    let Some(eps) = claimed(u, l.map(|l| l.lip))? else { return Ok(None) };
    Ok(Some(BpLip { eps, priors }))
}

fn claims(u: &mut Unstructured, prior: &[f64], l: Option<&Leakage>) -> Result<Claims> {
    let zero = Budget::new("zero", 0.0).expect("0 is a budget");
    let alip = if u.arbitrary()? {
        Some(TwoSided {
            eps_l: claimed(u, l.map(|l| l.alip.eps_l))?.unwrap_or(zero),
            eps_u: claimed(u, l.map(|l| l.alip.eps_u))?.unwrap_or(zero),
        })
    } else {
        None
    };
    Ok(Claims {
        ldp: claimed(u, l.map(|l| l.ldp))?,
        ldp_x: claimed(u, l.map(|l| l.ldp_x))?,
        lip: claimed(u, l.map(|l| l.lip))?,
        alip,
        bp_lip: bp_lip(u, prior, l)?,
        ..Claims::default()
    })
}

fn policy(u: &mut Unstructured, l: Option<&Leakage>) -> Result<Policy> {
    if u.arbitrary::<u8>()? < 128 {
        return Ok(Policy::default());
    }
    Ok(Policy {
        max_ldp_x: claimed(u, l.map(|l| l.ldp_x))?,
        max_ldp: claimed(u, l.map(|l| l.ldp))?,
        max_lip: claimed(u, l.map(|l| l.lip))?,
        max_eps_l: claimed(u, l.map(|l| l.alip.eps_l))?,
        max_eps_u: claimed(u, l.map(|l| l.alip.eps_u))?,
        max_ldp_s: claimed(u, l.map(|l| l.ldp))?,
        max_lip_s: claimed(u, l.map(|l| l.lip))?,
        max_eps_l_s: claimed(u, l.map(|l| l.alip.eps_l))?,
        max_eps_u_s: claimed(u, l.map(|l| l.alip.eps_u))?,
        max_verify_work: None,
    })
}

fn channel(u: &mut Unstructured, nx: usize, ny: usize) -> Result<Vec<Vec<f64>>> {
    (0..nx).map(|x| row(u, ny, x)).collect()
}

fn run(u: &mut Unstructured) -> Result<()> {
    let nx = u.int_in_range(1usize..=6)?;
    let mut ny = u.int_in_range(1usize..=6)?;
    let prior = row(u, nx, 0)?;
    let secret = if u.arbitrary::<u8>()? < 96 {
        // Joint P_SX = column-stochastic split of the prior (or raw), maybe corrupted.
        let ns = u.int_in_range(1usize..=4)?;
        let mut p_sx = vec![vec![0.0; nx]; ns];
        for x in 0..nx {
            let split = row(u, ns, x)?;
            for s in 0..ns {
                p_sx[s][x] = prior[x] * split[s];
            }
        }
        for r in p_sx.iter_mut() {
            corrupt(u, r)?;
        }
        let sl = if u.arbitrary()? { Some(labels(u, ns, "s")?) } else { None };
        Some(serde_json::json!({ "labels": sl, "p_sx": p_sx }))
    } else {
        None
    };
    let ns = secret.as_ref().map_or(nx, |s| s["p_sx"].as_array().map_or(0, Vec::len));
    let mechanism = match u.int_in_range(0u8..=9)? {
        // Per-secret P(Y|S,X) (non-Markov), or Markov with a declared P(Y|X).
        0 | 1 => {
            let mats: Vec<Vec<Vec<f64>>> = (0..ns).map(|_| channel(u, nx, ny)).collect::<Result<_>>()?;
            let mut v = serde_json::json!({"kind": "per_secret", "p_y_given_sx": mats});
            if u.arbitrary::<u8>()? < 64 {
                let mut m = channel(u, nx, ny)?;
                if u.arbitrary()? {
                    m = mats[0].clone();
                }
                v["p_y_given_sx"] = serde_json::json!(vec![m.clone(); ns]);
                v["p_y_given_x"] = serde_json::json!(m);
            }
            v
        }
        // Unary encoding: two flip probabilities.
        2 => {
            ny = nx;
            let q = |u: &mut Unstructured| -> Result<f64> {
                Ok(if u.arbitrary()? { any_f64(u)? } else { u.arbitrary::<u8>()? as f64 / 255.0 })
            };
            serde_json::json!({"kind": "unary", "q01": q(u)?, "q10": q(u)?})
        }
        // The structured kinds: k-RR, mixtures, merges (with and without an inner
        // mechanism) and sparse channels, with arbitrary (possibly hostile) numbers.
        3 => {
            ny = nx;
            match u.int_in_range(0u8..=2)? {
                0 => serde_json::json!({"kind": "krr", "epsilon": any_f64(u)?}),
                1 => serde_json::json!({"kind": "krr", "keep": u.arbitrary::<u8>()? as f64 / 255.0}),
                _ => serde_json::json!({"kind": "rr_lip", "keep": any_f64(u)?, "mixing": row(u, nx, 1)?}),
            }
        }
        4 => {
            let nb = u.int_in_range(1usize..=nx)?;
            let blocks: Vec<usize> =
                (0..nx).map(|x| if x < nb { Ok(x) } else { u.int_in_range(0..=nb - 1) }).collect::<Result<_>>()?;
            let mut v = serde_json::json!({"kind": "merge", "blocks": blocks});
            ny = nb;
            if u.arbitrary()? {
                v["inner"] = if u.arbitrary()? {
                    serde_json::json!({"kind": "krr", "keep": u.arbitrary::<u8>()? as f64 / 255.0})
                } else {
                    serde_json::json!({"kind": "matrix", "p_y_given_x": channel(u, nb, ny)?})
                };
            }
            v
        }
        5 => {
            let rows: Vec<Vec<(usize, f64)>> = channel(u, nx, ny)?
                .into_iter()
                .map(|r| r.into_iter().enumerate().filter(|(_, p)| *p != 0.0).collect())
                .collect();
            serde_json::json!({"kind": "sparse", "outputs": ny, "rows": rows})
        }
        _ => serde_json::json!({"kind": "matrix", "p_y_given_x": channel(u, nx, ny)?}),
    };
    let output_labels = if u.arbitrary::<u8>()? < 64 { Some(labels(u, ny, "y")?) } else { None };
    let record = serde_json::json!({
        "format": FORMAT,
        "version": VERSION,
        "id": "fuzz",
        "labels": labels(u, nx, "x")?,
        "output_labels": output_labels,
        "prior": [],
        "secret": secret,
        "mechanism": mechanism,
    });
    let Ok(mut wire) = serde_json::from_value::<DocumentJson>(record) else { return Ok(()) };
    wire.prior = prior; // as the typed API takes it: NaN and ±inf included
    // Phase 1: validate without claims and audit, so claims can sit right at the leakage.
    let leak = Document::from_wire(wire.clone()).ok().and_then(|d| d.audit(2.0).ok());
    let prior_copy = wire.prior.clone();
    let claims = claims(u, &prior_copy, leak.as_ref())?;
    let pol = policy(u, leak.as_ref())?;
    let alpha = any_f64(u)?;
    let hint: Vec<u32> = (0..4).map(|_| u.arbitrary()).collect::<Result<_>>()?;
    let words: Vec<u64> = (0..4).map(|_| u.arbitrary()).collect::<Result<_>>()?;

    let Ok(doc) = Document::from_wire(wire).and_then(|d| d.with_claims(claims)) else { return Ok(()) };
    common::exercise(&doc, &pol, &hint, &words, alpha);
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});
