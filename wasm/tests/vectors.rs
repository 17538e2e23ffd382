//! Golden vectors in wasm32, inside a JS engine: Node and headless Chromium and Firefox
//! (scripts/test-wasm.sh; `WASM_BINDGEN_USE_BROWSER=1` picks the browser, as for web.rs).
//! Each `tests/vectors/*.json` (see its README) is embedded and replayed twice:
//!
//! 1. through the core (`tests/vectors/replay.rs`, the code `tests/vectors.rs` runs
//!    natively), compiled to wasm32: the seeded outputs, and the `serde_json` text of every
//!    audit and receipt, must equal the file byte for byte;
//! 2. through the bindings the npm package calls (`Document`, `Mechanism`,
//!    `ContinuousDocument`, `ContinuousMechanism`, `OpenDocument`, `OpenMechanism`): every
//!    value they hand to JavaScript must equal the file's exact value bit for bit.
//!
//! Needs the `continuous` and `open` features (those bindings) besides the default `client`:
//! without it this file compiles to no test, which scripts/test-wasm.sh refuses (every test
//! file must run tests). `tests/vectors.rs` checks that this file embeds every vector.
#![cfg(all(target_arch = "wasm32", feature = "client", feature = "continuous", feature = "open"))]

#[path = "../../tests/vectors/replay.rs"]
mod replay;

use js_sys::{Array, Object, Reflect, JSON};
use privlift_wasm::continuous::WasmContinuousDocument;
use privlift_wasm::open::WasmOpenDocument;
use privlift_wasm::WasmDocument;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// One `#[wasm_bindgen_test]` per vector file.
macro_rules! vectors {
    ($($test:ident: $text:expr;)*) => {$(
        #[wasm_bindgen_test]
        fn $test() {
            replay_vector($text);
        }
    )*};
}

vectors! {
    age_krr: include_str!("../../tests/vectors/age-krr.json");
    gaussian_lattice: include_str!("../../tests/vectors/gaussian-lattice.json");
    gaussian_per_point: include_str!("../../tests/vectors/gaussian-per-point.json");
    joint_secret: include_str!("../../tests/vectors/joint-secret.json");
    krr_2x2: include_str!("../../tests/vectors/krr-2x2.json");
    krr_5_prior: include_str!("../../tests/vectors/krr-5-prior.json");
    krr_structured: include_str!("../../tests/vectors/krr-structured.json");
    laplace_gmm: include_str!("../../tests/vectors/laplace-gmm.json");
    merge_rr_lip_secret: include_str!("../../tests/vectors/merge-rr-lip-secret.json");
    oue_4: include_str!("../../tests/vectors/oue-4.json");
    open_hadamard: include_str!("../../tests/vectors/open-hadamard.json");
    open_hcms_listed: include_str!("../../tests/vectors/open-hcms-listed.json");
    open_heavy_hitters: include_str!("../../tests/vectors/open-heavy-hitters.json");
    open_olh_fruit: include_str!("../../tests/vectors/open-olh-fruit.json");
    salary_gaussian: include_str!("../../tests/vectors/salary-gaussian.json");
    sampling_histogram: include_str!("../../tests/vectors/sampling-histogram.json");
    sparse_rows: include_str!("../../tests/vectors/sparse-rows.json");
    srr_groups: include_str!("../../tests/vectors/srr-groups.json");
    unary_secret: include_str!("../../tests/vectors/unary-secret.json");
}

const CONTINUOUS_KINDS: [&str; 3] = ["gaussian", "laplace", "sampling"];

fn replay_vector(text: &str) {
    let stored: Value = serde_json::from_str(text).expect("a vector is JSON");
    let name = stored["name"].as_str().expect("a vector has a name").to_owned();
    // 1. The core, in wasm32: byte for byte.
    let replayed = replay::replay(&stored).unwrap_or_else(|e| panic!("{name}: {e}"));
    replay::same(&replayed, &stored, "$").unwrap_or_else(|e| panic!("{name} (core in wasm32): {e}"));
    // 2. The bindings: bit for bit.
    let kind = stored["document"]["mechanism"]["kind"].as_str().expect("a mechanism kind");
    let result = if CONTINUOUS_KINDS.contains(&kind) {
        continuous(&stored)
    } else if privlift::open::OPEN_KINDS.contains(&kind) {
        open(&stored)
    } else {
        discrete(&stored, kind)
    };
    result.unwrap_or_else(|e| panic!("{name} (bindings): {e}"));
}

fn js_err(what: &str) -> impl Fn(JsValue) -> String + '_ {
    move |e| {
        let code = Reflect::get(&e, &JsValue::from_str("code")).ok().and_then(|c| c.as_string()).unwrap_or_default();
        let message = e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_default();
        format!("{what}: threw {code}: {message}")
    }
}

fn document_text(v: &Value) -> String {
    serde_json::to_string(&v["document"]).expect("a document serialises")
}

/// The vector's policy as the JS object a page would pass (absent: `undefined`).
fn policy(v: &Value) -> JsValue {
    match v.get("policy") {
        None | Some(Value::Null) => JsValue::UNDEFINED,
        Some(p) => JSON::parse(&p.to_string()).expect("a policy is JSON"),
    }
}

fn seed(v: &Value) -> u64 {
    v["seed"].as_u64().expect("seed")
}

fn discrete(v: &Value, kind: &str) -> Result<(), String> {
    let a = &v["audit"];
    let doc = WasmDocument::parse(&document_text(v)).map_err(js_err("Document.parse"))?;
    same_js(&doc.audit(None).map_err(js_err("audit"))?, &a["document_audit"]["value"], "audit.document_audit")?;
    let mech = doc.verify(policy(v)).map_err(js_err("verify"))?;
    let xs: Vec<u32> = v["inputs"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
    let outputs = v["outputs"].as_array().unwrap();
    if kind == "unary" {
        for (i, (&x, want)) in xs.iter().zip(outputs).enumerate() {
            let bits = mech.perturb_bits_seeded_for_testing(x, seed(v) + i as u64).map_err(js_err("perturbBits"))?;
            let want: Vec<u8> = want.as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
            if bits != want {
                return Err(format!("outputs[{i}]: {bits:?} != {want:?} (expected)"));
            }
        }
    } else {
        let ys = mech.perturb_many_seeded_for_testing(xs.clone(), seed(v)).map_err(js_err("perturbMany"))?;
        let want: Vec<u32> = outputs.iter().map(|y| y.as_u64().unwrap() as u32).collect();
        if ys != want {
            return Err(format!("outputs: {ys:?} != {want:?} (expected)"));
        }
    }
    same_js(&mech.leakage().map_err(js_err("leakage"))?, &a["leakage"]["value"], "audit.leakage")?;
    same_js(&mech.leakage_x().map_err(js_err("leakageX"))?, &a["leakage_x"]["value"], "audit.leakage_x")?;
    same_js(&mech.verification().map_err(js_err("verification"))?, &a["verification"]["value"], "audit.verification")?;
    same_f64s(&[mech.lip_under_any_prior()], &[a["lip_under_any_prior"].clone()], "audit.lip_under_any_prior")?;
    same_f64s(&mech.receipt_bounds(), a["receipt_bounds"].as_array().unwrap(), "audit.receipt_bounds")?;
    let labels = mech.output_labels();
    for (i, r) in v["receipts"].as_array().unwrap().iter().enumerate() {
        let path = format!("receipts[{i}]");
        if kind == "unary" {
            let bits: Vec<u8> = r["bits"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
            same_js(&mech.receipt_bits(&bits).map_err(js_err("receiptBits"))?, &r["value"], &path)?;
        } else {
            let y = r["output"].as_u64().unwrap() as u32;
            same_js(&mech.receipt(y).map_err(js_err("receipt"))?, &r["value"], &path)?;
            let by_label = mech.receipt_for_label(&labels[y as usize]).map_err(js_err("receiptForLabel"))?;
            same_js(&by_label, &r["value"], &format!("{path} (by label)"))?;
        }
    }
    Ok(())
}

/// An open-domain vector through `OpenDocument` / `OpenMechanism`: reports (canonical
/// text), audit, verification and receipts (of the canonical texts the vector names).
fn open(v: &Value) -> Result<(), String> {
    let a = &v["audit"];
    let doc = WasmOpenDocument::parse_bytes(document_text(v).as_bytes(), JsValue::UNDEFINED)
        .map_err(js_err("OpenDocument.parseBytes"))?;
    let mech = doc.verify(policy(v)).map_err(js_err("verify"))?;
    let xs: Vec<String> = v["inputs"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect();
    let joined = xs.join("\0").into_bytes();
    let n = xs.len();
    let ys = mech.perturb_many_seeded_for_testing(xs, seed(v)).map_err(js_err("perturbManySeededForTesting"))?;
    let want: Vec<&str> = v["outputs"].as_array().unwrap().iter().map(|y| y.as_str().unwrap()).collect();
    if ys != want {
        return Err(format!("outputs: {ys:?} != {want:?} (expected)"));
    }
    // The batch path: the values written into the module's memory, the same reports as columns.
    let mut mech = mech;
    let len = joined.len() as u32;
    mech.stage_values(len).map_err(js_err("stageValues"))?.subarray(0, len).copy_from(&joined);
    let cols = mech
        .perturb_staged_seeded_for_testing(len, n as u32, seed(v))
        .map_err(js_err("perturbStagedSeededForTesting"))?
        .to_vec();
    let width = cols.len() / n;
    let batch: Vec<String> =
        (0..n).map(|i| (0..width).map(|f| cols[f * n + i].to_string()).collect::<Vec<_>>().join(":")).collect();
    if batch != want {
        return Err(format!("outputs through the batch: {batch:?} != {want:?} (expected)"));
    }
    same_js(&mech.audit(), &a["audit"]["value"], "audit.audit")?;
    same_js(&mech.verification(), &a["verification"]["value"], "audit.verification")?;
    for (i, r) in v["receipts"].as_array().unwrap().iter().enumerate() {
        let report = JsValue::from_str(r["report"].as_str().unwrap());
        same_js(&mech.receipt(report).map_err(js_err("receipt"))?, &r["value"], &format!("receipts[{i}]"))?;
    }
    Ok(())
}

fn continuous(v: &Value) -> Result<(), String> {
    let a = &v["audit"];
    let doc = WasmContinuousDocument::parse(&document_text(v)).map_err(js_err("ContinuousDocument.parse"))?;
    same_js(&doc.audit().map_err(js_err("audit"))?, &a["document_audit"]["value"], "audit.document_audit")?;
    let prior = a["lattice_prior"].as_array().unwrap();
    same_f64s(&doc.lattice_prior(), prior, "audit.lattice_prior")?;
    let mech = doc.verify(policy(v)).map_err(js_err("verify"))?;
    same_f64s(&mech.lattice_prior(), prior, "audit.lattice_prior (mechanism)")?;
    let xs: Vec<f64> = v["inputs"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    let ys = mech.perturb_many_seeded_for_testing(&xs, seed(v)).map_err(js_err("perturbMany"))?;
    same_f64s(&ys, v["outputs"].as_array().unwrap(), "outputs")?;
    same_js(&mech.audit().map_err(js_err("audit"))?, &a["audit"]["value"], "audit.audit")?;
    same_js(&mech.verification().map_err(js_err("verification"))?, &a["verification"]["value"], "audit.verification")?;
    for (i, r) in v["receipts"].as_array().unwrap().iter().enumerate() {
        let y = replay::read_f64(&r["output"]).unwrap();
        let x = r.get("x").map(|x| replay::read_f64(x).unwrap());
        same_js(&mech.receipt(y, x).map_err(js_err("receipt"))?, &r["value"], &format!("receipts[{i}]"))?;
    }
    Ok(())
}

/// Floats against a vector's exact numbers, by bits (NaN: any NaN).
fn same_f64s(actual: &[f64], expected: &[Value], path: &str) -> Result<(), String> {
    if actual.len() != expected.len() {
        return Err(format!("{path}: {} elements != {} (expected)", actual.len(), expected.len()));
    }
    for (i, (&a, e)) in actual.iter().zip(expected).enumerate() {
        let e = replay::read_f64(e).ok_or_else(|| format!("{path}[{i}]: not a number in the vector"))?;
        if !(a.to_bits() == e.to_bits() || a.is_nan() && e.is_nan()) {
            return Err(format!(
                "{path}[{i}]: {a:e} (bits {:#018x}) != {e:e} (bits {:#018x}, expected)",
                a.to_bits(),
                e.to_bits()
            ));
        }
    }
    Ok(())
}

/// The JS spelling of a key the vectors (the JSON the native library writes) spell in
/// snake_case: `max_lift_bound` → `maxLiftBound`.
fn camel(snake: &str) -> String {
    let mut parts = snake.split('_');
    let mut out = String::from(parts.next().unwrap_or_default());
    for p in parts {
        let mut cs = p.chars();
        out.extend(cs.next().map(|c| c.to_ascii_uppercase()));
        out.push_str(cs.as_str());
    }
    out
}

/// A value the bindings hand to JavaScript against a vector's exact value, bit for bit:
/// numbers by their f64 bits, an absent Option (`undefined`) for `null`, objects key by key
/// under their camelCase names (no key the vector lacks).
fn same_js(actual: &JsValue, expected: &Value, path: &str) -> Result<(), String> {
    let differ = |why: &str| {
        let shown = JSON::stringify(actual).ok().and_then(|s| s.as_string()).unwrap_or_else(|| format!("{actual:?}"));
        Err(format!("{path}: {why}: got {shown}, expected {expected}"))
    };
    if let Some(special) = expected.get("non_finite").and_then(|_| replay::read_f64(expected)) {
        return match actual.as_f64() {
            Some(a) if a.to_bits() == special.to_bits() || a.is_nan() && special.is_nan() => Ok(()),
            _ => differ("not the same non-finite float"),
        };
    }
    match expected {
        Value::Null if actual.is_null() || actual.is_undefined() => Ok(()),
        Value::Null => differ("expected no value"),
        Value::Bool(b) if actual.as_bool() == Some(*b) => Ok(()),
        Value::Number(n) => match (actual.as_f64(), n.as_f64()) {
            (Some(a), Some(e)) if a.to_bits() == e.to_bits() => Ok(()),
            _ => differ("not the same f64"),
        },
        Value::String(s) if actual.as_string().as_deref() == Some(s.as_str()) => Ok(()),
        Value::Array(items) => {
            if !Array::is_array(actual) {
                return differ("not an array");
            }
            let arr: &Array = actual.unchecked_ref();
            if arr.length() as usize != items.len() {
                return differ("not the same length");
            }
            items.iter().enumerate().try_for_each(|(i, e)| same_js(&arr.get(i as u32), e, &format!("{path}[{i}]")))
        }
        Value::Object(map) => {
            if !actual.is_object() || Array::is_array(actual) {
                return differ("not an object");
            }
            for key in Object::keys(actual.unchecked_ref::<Object>()).iter() {
                let k = key.as_string().unwrap_or_default();
                let value = Reflect::get(actual, &key).unwrap_or(JsValue::UNDEFINED);
                if !value.is_undefined() && !map.keys().any(|e| camel(e) == k) {
                    return differ(&format!("unexpected key `{k}`"));
                }
            }
            map.iter().try_for_each(|(k, e)| {
                let value = Reflect::get(actual, &JsValue::from_str(&camel(k))).unwrap_or(JsValue::UNDEFINED);
                // A check's notion names a claim or a policy key: camelCase in JS too.
                let e = match e {
                    Value::String(notion) if k == "notion" => &Value::String(camel(notion)),
                    e => e,
                };
                same_js(&value, e, &format!("{path}.{k}"))
            })
        }
        _ => differ("differs"),
    }
}
