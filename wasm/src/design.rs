//! Curator-side bindings (feature `design`): the same designers and estimators as the
//! CLI, for pages that redesign a mechanism in the browser. Mirrors
//! [`privlift_design::request`] and [`privlift_design::estimate`]; no maths here.

use alloc::string::String;
use alloc::vec::Vec;
use wasm_bindgen::prelude::*;

use crate::{js_error, to_js, to_js_camel, WasmDocument};
use privlift::error::Error;
use privlift::param::Epsilon;
use privlift_design::continuous::fit_gmm;
use privlift_design::estimate::estimate_document;
use privlift_design::request::{design as run, DesignRequest, METHODS};

/// Designs a mechanism. `request` is the JSON text of a design request
/// (`{"prior": {"labels", "p"}} | {"joint": {...}}`, `epsilon`, `alpha`, `a`, `b`,
/// `priors`, `distortion`, `id`); unknown keys are rejected. Returns the published
/// document, already audited.
///
/// `progress`, if given, is called with a fraction in [0, 1] as the vertex searches of
/// ORR, AORR and SRR go ([`privlift_design::progress`]): the bases a search has visited
/// against its cap, the share of the work left before the design would be refused. Its
/// result and any exception it throws are ignored.
#[wasm_bindgen(js_name = design)]
pub fn design(method: &str, request: &str, progress: Option<js_sys::Function>) -> Result<WasmDocument, JsValue> {
    let req: DesignRequest = serde_json::from_str(request).map_err(|e| js_error(Error::from_parser(e)))?;
    let result = match progress {
        Some(f) => privlift_design::progress::observe(
            move |p| {
                let _ = f.call1(&JsValue::NULL, &JsValue::from_f64(search_fraction(p)));
            },
            || run(method, req),
        ),
        None => run(method, req),
    };
    result.map(|doc| WasmDocument { doc }).map_err(js_error)
}

/// `design(method, request)` when the designer bounds its work before it starts by at most
/// `max_cells` ([`privlift_design::work::design_bound`]) and every LP it solves ends within
/// `max_lp_ms` milliseconds of the call ([`privlift_design::work::within`]); `undefined`
/// when it does not, or the request does not parse: js/design.js then runs the design in
/// the package's Worker, which refuses a bad request. A design with a small bound runs on
/// the calling thread this way, an LP's pivots cut at the deadline.
///
/// A design that may be given up (a timed bound: an LP, a vertex search) calls `started()`
/// just before it runs (its time counts towards the deadline); a closed form, which no
/// deadline stops, runs without the clock or `started`.
#[wasm_bindgen(js_name = designWithin)]
pub fn design_within(
    method: &str,
    request: &str,
    max_cells: f64,
    max_lp_ms: f64,
    started: &js_sys::Function,
) -> Result<Option<WasmDocument>, JsValue> {
    if !privlift_design::work::BOUNDED_METHODS.contains(&method) {
        return Ok(None);
    }
    let Ok(req) = serde_json::from_str::<DesignRequest>(request) else {
        return Ok(None);
    };
    let bound = match privlift_design::work::design_bound(method, &req) {
        Some(bound) if bound.cells as f64 <= max_cells => bound,
        _ => return Ok(None),
    };
    // A limit that is no duration (NaN, negative) lets no LP run here.
    let lp_time = core::time::Duration::try_from_secs_f64(max_lp_ms / 1e3).unwrap_or_default();
    let designed = match bound.timed {
        true => privlift_design::work::within(lp_time, || {
            started.call0(&JsValue::NULL)?;
            Ok::<_, JsValue>(run(method, req))
        }),
        false => Some(Ok(run(method, req))),
    };
    match designed {
        None => Ok(None),
        Some(result) => result?.map(|doc| Some(WasmDocument { doc })).map_err(js_error),
    }
}

/// How far one vertex search is, in [0, 1]: its bases against its cap.
fn search_fraction(p: &privlift_design::progress::Progress) -> f64 {
    if p.max_bases == 0 {
        1.0
    } else {
        (p.bases as f64 / p.max_bases as f64).min(1.0)
    }
}

/// The design methods this build knows.
#[wasm_bindgen(js_name = designMethods)]
pub fn design_methods() -> Vec<String> {
    METHODS.iter().map(|m| String::from(*m)).collect()
}

/// Unbiased frequency estimate from report counts (see `privlift estimate`).
#[wasm_bindgen(js_name = estimate)]
pub fn estimate(doc: &WasmDocument, counts: &[f64], n: Option<f64>, project: bool) -> Result<JsValue, JsValue> {
    let e = estimate_document(&doc.doc, counts, n).map_err(js_error)?;
    to_js_camel(&if project { e.with_projection() } else { e })
}

/// A Gaussian-mixture prior fitted to `samples` by EM, with 1 to `max_components`
/// components chosen by BIC (see `privlift_design::continuous::fit_gmm`). Returns
/// `{weights, means, sds, components, logLikelihood, bic, iterations}`.
#[wasm_bindgen(js_name = fitGmm)]
pub fn fit_gmm_js(samples: &[f64], max_components: usize) -> Result<JsValue, JsValue> {
    let fit = fit_gmm(samples, max_components).map_err(js_error)?;
    let (weights, comps): (Vec<f64>, Vec<_>) = fit.mixture.components().unzip();
    to_js(&serde_json::json!({
        "weights": weights,
        "means": comps.iter().map(|g| g.mean()).collect::<Vec<_>>(),
        "sds": comps.iter().map(|g| g.sd()).collect::<Vec<_>>(),
        "components": fit.components,
        "logLikelihood": fit.log_likelihood,
        "bic": fit.bic,
        "iterations": fit.iterations,
    }))
}

/// A continuous design request (`privlift design gaussian-lip …` as JSON):
/// `{method, domain: {lo, hi, step}, prior: {gaussian|gmm|histogram: …}, epsilon, delta, id?,
/// maxVerifyWork?}`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ContinuousRequestJson {
    method: String,
    domain: privlift::document::DomainJson,
    prior: privlift::document::PriorJson,
    epsilon: f64,
    #[serde(default)]
    delta: f64,
    #[serde(default)]
    id: Option<String>,
    #[serde(default, rename = "maxVerifyWork")]
    max_verify_work: Option<f64>,
}

/// Designs a continuous mechanism (see `privlift_design::continuous::design`): `request` is the
/// JSON text of `{method, domain, prior, epsilon, delta, id?}`. Returns the audited
/// document as a `ContinuousDocument`.
///
/// `progress`, if given, is called with a fraction in [0, 1] after each step of the
/// design (an exact audit of the lattice mechanism, a certified bound of the calibration):
/// the steps done against those the method is expected to make
/// ([`privlift_design::progress::Steps`]). Its result and any exception are ignored.
#[wasm_bindgen(js_name = designContinuous)]
pub fn design_continuous(
    request: &str,
    progress: Option<js_sys::Function>,
) -> Result<crate::continuous::WasmContinuousDocument, JsValue> {
    let r: ContinuousRequestJson = serde_json::from_str(request).map_err(|e| js_error(Error::from_parser(e)))?;
    let req = privlift_design::continuous::design::ContinuousRequest {
        method: r.method,
        domain: r.domain,
        prior: r.prior,
        epsilon: Epsilon::positive("epsilon", r.epsilon).map_err(js_error)?,
        delta: r.delta,
        id: r.id,
        max_verify_work: r.max_verify_work,
    };
    let design = || privlift_design::continuous::design::design_continuous(&req);
    let result = match progress {
        Some(f) => privlift_design::progress::observe_steps(
            move |s| {
                let fraction = (s.done as f64 / s.expected.max(1) as f64).min(1.0);
                let _ = f.call1(&JsValue::NULL, &JsValue::from_f64(fraction));
            },
            design,
        ),
        None => design(),
    };
    result.map(|doc| crate::continuous::WasmContinuousDocument { doc }).map_err(js_error)
}

/// The continuous design methods this build knows.
#[wasm_bindgen(js_name = continuousDesignMethods)]
pub fn continuous_design_methods() -> Vec<String> {
    privlift_design::continuous::design::CONTINUOUS_METHODS.iter().map(|m| String::from(*m)).collect()
}
