//! The wasm bindings, driven from Rust inside a JS engine: `cargo test --target
//! wasm32-unknown-unknown` with wasm-bindgen-test-runner as cargo's runner, in Node and in
//! headless browsers (`WASM_BINDGEN_USE_BROWSER=1` and a driver: `CHROMEDRIVER`, `GECKODRIVER`,
//! `SAFARIDRIVER`). No `wasm_bindgen_test_configure!(run_in_browser)`: the environment
//! variables pick the runtime, so the same file runs in all of them (scripts/test-wasm.sh).
//!
//! `perturb` and `perturbMany` here use the real `crypto.getRandomValues` path.
#![cfg(all(target_arch = "wasm32", feature = "client"))]

use js_sys::{Array, Object, Reflect};
use privlift_wasm::{error_codes, WasmDocument, WasmMechanism};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// k-RR with k = 3 and ε = ln 2: P(y = x) = 1/2, the other outputs 1/4.
fn krr_json(claim_ldp_x: f64) -> String {
    format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "krr3",
            "labels": ["a", "b", "c"], "output_labels": ["A", "B", "C"],
            "prior": [0.2, 0.3, 0.5],
            "mechanism": {{"kind": "matrix",
              "p_y_given_x": [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]}},
            "claims": {{"ldp_x": {claim_ldp_x}}}}}"#
    )
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("Reflect::get")
}

fn num(v: &JsValue, key: &str) -> f64 {
    get(v, key).as_f64().unwrap_or_else(|| panic!("{key} is not a number"))
}

fn policy(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    o.into()
}

fn verified() -> WasmMechanism {
    let doc = WasmDocument::parse(&krr_json(core::f64::consts::LN_2)).expect("parse");
    doc.verify(policy(&[("maxLdpX", JsValue::from_f64(1.0))])).expect("verify")
}

/// The JS error's `code`, after checking it is a real `Error` named PrivliftError.
fn code_of(err: JsValue) -> String {
    let e = err.dyn_ref::<js_sys::Error>().expect("a JS Error object");
    assert_eq!(String::from(e.name()), "PrivliftError");
    assert!(!String::from(e.message()).is_empty());
    get(&err, "code").as_string().expect("a string `code` property")
}

#[wasm_bindgen_test]
fn parse_verify_perturb_receipt() {
    let doc = WasmDocument::parse(&krr_json(core::f64::consts::LN_2)).expect("parse");
    assert_eq!(doc.id(), "krr3");
    assert_eq!(doc.labels(), ["a", "b", "c"]);
    assert_eq!(doc.output_labels(), ["A", "B", "C"]);
    let mut mech = doc.verify(JsValue::UNDEFINED).expect("verify");
    assert_eq!(mech.input_index("c").unwrap(), 2);
    for x in 0..3 {
        let y = mech.perturb(x).expect("perturb");
        assert!(y < 3);
        let r = mech.receipt(y).expect("receipt");
        assert_eq!(get(&r, "outputIndex").as_f64(), Some(y as f64));
        assert_eq!(get(&r, "mechanismId").as_string().as_deref(), Some("krr3"));
        let (lo, hi) = (num(&r, "minLiftBound"), num(&r, "maxLiftBound"));
        // The audited min/max lift of this 3-RR under the prior (0.2, 0.3, 0.5): 0.25/0.375
        // and 0.5/0.3, rounded outwards (never the claim's e^{∓ln 2}).
        let (min, max) = (2.0 / 3.0, 5.0 / 3.0);
        assert!(lo <= min && min - lo < 1e-12 && hi >= max && hi - max < 1e-12, "bounds {lo} {hi}");
        let entries: Array = get(&r, "entries").dyn_into().expect("entries is an array");
        assert_eq!(entries.length(), 3);
        let mut total = 0.0;
        for e in entries.iter() {
            let (prior, post, lift) = (num(&e, "prior"), num(&e, "posterior"), num(&e, "lift"));
            assert!((lift - post / prior).abs() < 1e-12);
            assert!(lift >= lo && lift <= hi, "lift {lift} outside [{lo}, {hi}]");
            total += post;
        }
        assert!((total - 1.0).abs() < 1e-12);
    }
    let by_label = mech.receipt_for_label("B").expect("receipt by label");
    assert_eq!(get(&by_label, "output").as_string().as_deref(), Some("B"));
}

#[wasm_bindgen_test]
fn perturb_many_uses_the_browser_csprng_and_follows_the_row() {
    let mut mech = verified();
    let n = 20_000usize;
    let ys = mech.perturb_many(vec![1u32; n]).expect("perturbMany");
    assert_eq!(ys.len(), n);
    let mut counts = [0usize; 3];
    for y in ys {
        counts[y as usize] += 1;
    }
    // Row of x = 1: (1/4, 1/2, 1/4); 6 binomial standard deviations.
    for (y, p) in [0.25, 0.5, 0.25].into_iter().enumerate() {
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        let diff = (counts[y] as f64 - n as f64 * p).abs();
        assert!(diff <= 6.0 * sd, "count[{y}] = {} (expected {})", counts[y], n as f64 * p);
    }
    // Two CSPRNG batches are not the same sequence.
    let a = mech.perturb_many(vec![0u32; 256]).unwrap();
    let b = mech.perturb_many(vec![0u32; 256]).unwrap();
    assert_ne!(a, b);
}

/// A `krr` document at k with ε = 40: κ = 1 − (k − 1)/(e⁴⁰ + k − 1) rounds to the 32-bit
/// draw's finest step, so (nearly) every output is its input, and a wrongly narrowed
/// output index shows.
fn near_identity_krr(k: usize) -> WasmMechanism {
    let labels: Vec<String> = (0..k).map(|i| format!("\"v{i}\"")).collect();
    let json = format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "krr{k}", "labels": [{}],
            "prior": [{}], "mechanism": {{"kind": "krr", "epsilon": 40}}, "claims": {{"ldp_x": 41}}}}"#,
        labels.join(","),
        vec![format!("{}", 1.0 / k as f64); k].join(",")
    );
    WasmDocument::parse(&json).expect("parse").verify(JsValue::UNDEFINED).expect("verify")
}

#[wasm_bindgen_test]
fn perturb_into_writes_every_width_that_holds_the_outputs_and_refuses_a_narrower_one() {
    use js_sys::{Uint16Array, Uint32Array, Uint8Array};
    for k in [256usize, 257, 4096] {
        let mut mech = near_identity_krr(k);
        assert_eq!(mech.output_count() as usize, k);
        // Two blocks and a bit: the block seams move each output to its place.
        let n = 140_000u32;
        let xs = Uint32Array::new_with_length(n);
        for i in 0..n {
            xs.set_index(i, k as u32 - 1 - i % k as u32);
        }
        let same = |ys: Vec<u32>| ys.iter().zip(xs.to_vec()).filter(|(y, x)| **y == *x).count();
        let out32 = Uint32Array::new_with_length(n);
        mech.perturb_into(&xs, &out32).expect("into a Uint32Array");
        assert!(same(out32.to_vec()) as u32 > n - 10, "k = {k}: Uint32Array");
        let out16 = Uint16Array::new_with_length(n);
        mech.perturb_into(&xs, &out16).expect("into a Uint16Array");
        assert!(same(out16.to_vec().into_iter().map(u32::from).collect()) as u32 > n - 10, "k = {k}: Uint16Array");
        let out8 = Uint8Array::new_with_length(n);
        let into8 = mech.perturb_into(&xs, &out8);
        if k <= 256 {
            into8.expect("into a Uint8Array");
            assert!(same(out8.to_vec().into_iter().map(u32::from).collect()) as u32 > n - 10, "k = {k}: Uint8Array");
        } else {
            assert_eq!(code_of(into8.unwrap_err()), "invalid_argument", "k = {k}: a Uint8Array is too narrow");
            assert!(out8.to_vec().iter().all(|&b| b == 0), "nothing written into the refused array");
        }
    }
    let mut mech = verified();
    let xs = Uint32Array::new_with_length(4);
    assert_eq!(code_of(mech.perturb_into(&xs, &JsValue::from_f64(4.0)).unwrap_err()), "invalid_argument");
    let short = Uint8Array::new_with_length(3);
    assert_eq!(code_of(mech.perturb_into(&xs, &short).unwrap_err()), "invalid_argument");
}

#[wasm_bindgen_test]
fn seeded_path_is_deterministic() {
    let mech = verified();
    let xs: Vec<u32> = (0..500).map(|i| i % 3).collect();
    let a = mech.perturb_many_seeded_for_testing(xs.clone(), 7).unwrap();
    let b = mech.perturb_many_seeded_for_testing(xs.clone(), 7).unwrap();
    let c = mech.perturb_many_seeded_for_testing(xs.clone(), 8).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[wasm_bindgen_test]
fn errors_cross_as_js_errors_with_a_code() {
    assert_eq!(code_of(WasmDocument::parse("{not json").unwrap_err()), "json");
    let liar = WasmDocument::parse(&krr_json(0.5)).unwrap();
    assert_eq!(code_of(liar.verify(JsValue::NULL).unwrap_err()), "claim_violated");
    let check = liar.check(JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&check, "claimsHold").as_bool(), Some(false));

    let mut mech = verified();
    assert_eq!(code_of(mech.perturb(3).unwrap_err()), "unknown_value");
    assert_eq!(code_of(mech.perturb_many(vec![0, 1, 9]).unwrap_err()), "unknown_value");
    assert_eq!(code_of(mech.input_index("zzz").unwrap_err()), "unknown_value");
    assert_eq!(code_of(mech.receipt(3).unwrap_err()), "unknown_output");
    assert_eq!(code_of(mech.receipt_for_label("Z").unwrap_err()), "unknown_output");
}

#[wasm_bindgen_test]
fn policy_keys_camel_case_only_and_typos() {
    let doc = WasmDocument::parse(&krr_json(core::f64::consts::LN_2)).unwrap();
    let tight = JsValue::from_f64(0.5);
    for key in ["maxLdpX", "maxLdp"] {
        let err = doc.verify(policy(&[(key, tight.clone())])).unwrap_err();
        assert_eq!(code_of(err), "policy_violated", "key {key}");
    }
    // Loose limits pass, and the report names each limit by its key.
    let v = doc.check(policy(&[("maxLip", JsValue::from_f64(5.0)), ("maxEpsU", JsValue::from_f64(5.0))])).unwrap();
    assert_eq!(get(&v, "policyHolds").as_bool(), Some(true));
    let checks: Array = get(&v, "policy").dyn_into().unwrap();
    let notions: Vec<String> = checks.iter().map(|c| get(&c, "notion").as_string().unwrap()).collect();
    assert_eq!(notions, ["maxLip", "maxEpsU"]);
    // The CLI's snake_case spelling is refused in JS, naming the camelCase key.
    for (snake, camel) in [("max_ldp_x", "maxLdpX"), ("max_eps_l_s", "maxEpsLS"), ("max_verify_work", "maxVerifyWork")]
    {
        let err = doc.verify(policy(&[(snake, tight.clone())])).unwrap_err();
        let message = js_sys::Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
        assert_eq!(code_of(err), "invalid_argument", "key {snake}");
        assert!(message.contains(camel), "{message}");
    }
    // A misspelt limit is never silently dropped.
    for bad in [
        policy(&[("maxLDPX", tight.clone())]),
        policy(&[("maxLdpX", JsValue::from_str("0.5"))]),
        policy(&[("maxLdpX", JsValue::from_f64(f64::NAN))]),
        policy(&[("maxLdpX", JsValue::from_f64(-1.0))]),
        // A limit is removed by leaving its key out, never by its value.
        policy(&[("maxLip", JsValue::NULL)]),
        policy(&[("maxLip", JsValue::UNDEFINED)]),
        policy(&[("maxVerifyWork", JsValue::NULL)]),
        policy(&[("maxEpsU", JsValue::TRUE)]),
        JsValue::from_f64(3.0),
    ] {
        assert_eq!(code_of(doc.verify(bad).unwrap_err()), "invalid_argument");
    }
}

#[wasm_bindgen_test]
fn leakage_verification_and_error_codes() {
    let mech = verified();
    let leak = mech.leakage().unwrap();
    let ldp_x = num(&leak, "ldpX");
    let ln2 = core::f64::consts::LN_2;
    assert!(ldp_x >= ln2 && ldp_x <= ln2 * (1.0 + 1e-9), "ldp_x {ldp_x}");
    let alip = get(&leak, "alip");
    assert!(num(&alip, "epsU") > 0.0 && num(&alip, "epsL") > 0.0);
    let v = mech.verification().unwrap();
    assert_eq!(get(&v, "claimsHold").as_bool(), Some(true));
    let codes = error_codes();
    for c in privlift::Error::CODES {
        assert!(codes.iter().any(|x| x == c), "{c} missing from errorCodes()");
    }
}

#[wasm_bindgen_test]
fn unary_encoding_bits_and_receipt() {
    let doc = WasmDocument::parse(
        r#"{"format": "privlift-mechanism", "version": 1, "id": "oue3",
            "labels": ["a", "b", "c"], "prior": [0.25, 0.25, 0.5],
            "mechanism": {"kind": "unary", "q01": 0.25, "q10": 0.25},
            "claims": {"ldp_x": 2.2}}"#,
    )
    .expect("parse");
    assert_eq!(doc.kind(), "unary");
    let mut mech = doc.verify(JsValue::UNDEFINED).expect("verify");
    assert_eq!(mech.kind(), "unary");
    let n = 4000;
    let mut ones = [0usize; 3];
    for _ in 0..n {
        let bits = mech.perturb_bits(1).expect("perturbBits");
        assert_eq!(bits.len(), 3);
        for (j, b) in bits.into_iter().enumerate() {
            assert!(b <= 1);
            ones[j] += b as usize;
        }
    }
    for (j, p) in [0.25, 0.75, 0.25].into_iter().enumerate() {
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!((ones[j] as f64 - n as f64 * p).abs() <= 6.0 * sd, "bit {j}: {} ones", ones[j]);
    }
    let r = mech.receipt_bits(&[0, 1, 1]).expect("receiptBits");
    assert_eq!(get(&r, "output").as_string().as_deref(), Some("011"));
    assert!(get(&r, "outputIndex").is_undefined());
    assert_eq!(
        mech.perturb_bits_seeded_for_testing(2, 9).unwrap(),
        mech.perturb_bits_seeded_for_testing(2, 9).unwrap()
    );
    assert_eq!(code_of(mech.receipt_bits(&[0, 2, 1]).unwrap_err()), "invalid_argument");
    assert_eq!(code_of(mech.receipt_bits(&[0, 1]).unwrap_err()), "dimension_mismatch");
    assert_eq!(code_of(mech.perturb(0).unwrap_err()), "invalid_argument");
    assert_eq!(code_of(mech.receipt(0).unwrap_err()), "invalid_argument");
}

/// The JS error's `message`.
fn message_of(err: &JsValue) -> String {
    err.dyn_ref::<js_sys::Error>().expect("a JS Error object").message().into()
}

/// A continuous document (the core's doc example).
const GAUSSIAN: &str = r#"{"format": "privlift-mechanism", "version": 1, "id": "age-gaussian-lip",
    "domain": {"lo": 0, "hi": 100, "step": 0.5}, "prior": {"gaussian": {"mean": 40, "sd": 12}},
    "mechanism": {"kind": "gaussian", "sigma": 228}, "claims": {"lip": {"eps": 1.0, "delta": 1e-5}}}"#;

#[wasm_bindgen_test]
fn parse_bytes_reads_utf8_as_parse_reads_text() {
    let text = krr_json(core::f64::consts::LN_2).replace(r#"["a", "b", "c"]"#, r#"["ä", "日本", "\ud83d\ude00"]"#);
    let from_text = WasmDocument::parse(&text).expect("parse");
    let from_bytes = WasmDocument::parse_bytes(text.as_bytes(), JsValue::UNDEFINED, None).expect("parseBytes");
    assert_eq!(from_bytes.labels(), ["ä", "日本", "😀"]);
    assert_eq!(from_bytes.labels(), from_text.labels());
    assert_eq!(from_bytes.prior(), from_text.prior());

    // Bytes that are not UTF-8, in a string or between values, are `json`.
    for bad in [&b"\xff"[..], b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe6\x97"] {
        for at in [text.find("krr3").unwrap(), text.find("\"prior\"").unwrap()] {
            let mut bytes = text.as_bytes().to_vec();
            bytes.splice(at..at, bad.iter().copied());
            let err = WasmDocument::parse_bytes(&bytes, JsValue::UNDEFINED, None).unwrap_err();
            assert!(message_of(&err).contains("not valid UTF-8"), "{}", message_of(&err));
            assert_eq!(code_of(err), "json");
        }
    }
    // A continuous document with a bad byte: `json` before its family is looked at.
    let mut bytes = GAUSSIAN.as_bytes().to_vec();
    bytes.splice(30..30, [0xff]);
    assert_eq!(code_of(WasmDocument::parse_bytes(&bytes, JsValue::UNDEFINED, None).unwrap_err()), "json");
}

#[wasm_bindgen_test]
fn a_thread_limit_below_the_budget_refuses_as_needs_async_with_the_work() {
    let text = krr_json(core::f64::consts::LN_2);
    let err = WasmDocument::parse_bytes(text.as_bytes(), JsValue::UNDEFINED, Some(1.0)).unwrap_err();
    let work = num(&err, "work");
    assert!(work > 1.0 && work <= privlift::verify::DEFAULT_MAX_VERIFY_WORK, "{work}");
    assert_eq!(code_of(err), "needs_async");
    // A budget below the limit: the policy's refusal. A limit above the budget: none.
    let low = policy(&[("maxVerifyWork", JsValue::from_f64(0.5))]);
    assert_eq!(code_of(WasmDocument::parse_bytes(text.as_bytes(), low, Some(1.0)).unwrap_err()), "too_costly");
    assert!(WasmDocument::parse_bytes(text.as_bytes(), JsValue::UNDEFINED, Some(f64::INFINITY)).is_ok());
    // The refusals that come first stay first: bytes that are not UTF-8, another family.
    let mut bytes = text.as_bytes().to_vec();
    bytes.splice(text.find("krr3").unwrap().., [0xff]);
    assert_eq!(code_of(WasmDocument::parse_bytes(&bytes, JsValue::UNDEFINED, Some(1.0)).unwrap_err()), "json");
    let err = WasmDocument::parse_bytes(GAUSSIAN.as_bytes(), JsValue::UNDEFINED, Some(1.0)).unwrap_err();
    assert_eq!(code_of(err), "unsupported_mechanism");
}

#[wasm_bindgen_test]
fn a_continuous_document_names_the_continuous_entry_point() {
    for kind in ["gaussian", "laplace", "sampling"] {
        let text = GAUSSIAN.replace(r#""kind": "gaussian""#, &format!(r#""kind": "{kind}""#));
        for err in [
            WasmDocument::parse(&text).unwrap_err(),
            WasmDocument::parse_bytes(text.as_bytes(), JsValue::UNDEFINED, None).unwrap_err(),
        ] {
            let message = message_of(&err);
            assert!(message.contains(&format!("mechanism kind '{kind}' is a continuous document")), "{message}");
            assert!(message.contains("parseContinuousMechanism"), "{message}");
            assert_eq!(code_of(err), "unsupported_mechanism");
        }
    }
    // No string `mechanism.kind`: the parse error stands.
    let no_kind = GAUSSIAN.replace(r#""kind": "gaussian","#, "");
    assert_eq!(code_of(WasmDocument::parse(&no_kind).unwrap_err()), "json");
    let numeric = GAUSSIAN.replace(r#""kind": "gaussian""#, r#""kind": 1"#);
    assert_eq!(code_of(WasmDocument::parse(&numeric).unwrap_err()), "json");
}

#[cfg(feature = "continuous")]
#[wasm_bindgen_test]
fn a_discrete_document_names_the_discrete_entry_point() {
    use privlift_wasm::continuous::WasmContinuousDocument;
    let text = krr_json(core::f64::consts::LN_2);
    for err in [
        WasmContinuousDocument::parse(&text).unwrap_err(),
        WasmContinuousDocument::parse_bytes(text.as_bytes()).unwrap_err(),
    ] {
        let message = message_of(&err);
        assert!(message.contains("mechanism kind 'matrix' is a discrete document: use parseMechanism"), "{message}");
        assert_eq!(code_of(err), "unsupported_mechanism");
    }
    let doc = WasmContinuousDocument::parse_bytes(GAUSSIAN.as_bytes()).expect("parseBytes");
    assert_eq!(doc.kind(), "gaussian");
    let mut bytes = text.into_bytes();
    bytes.push(0xff);
    assert_eq!(code_of(WasmContinuousDocument::parse_bytes(&bytes).unwrap_err()), "json");
}
