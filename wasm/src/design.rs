//! Curator-side bindings (feature `design`): the same designers and estimators as the
//! CLI, for pages that redesign a mechanism in the browser. Mirrors
//! [`privlift_design::request`] and [`privlift_design::estimate`]; no maths here.

use alloc::string::String;
use alloc::vec::Vec;
use wasm_bindgen::prelude::*;

use crate::{js_error, to_js, WasmDocument};
use privlift::error::Error;
use privlift_design::continuous::fit_gmm;
use privlift_design::estimate::estimate_document;
use privlift_design::request::{design as run, DesignRequest, METHODS};

/// Designs a mechanism. `request` is the JSON text of a design request
/// (`{"prior": {"labels", "p"}} | {"joint": {...}}`, `epsilon`, `alpha`, `a`, `b`,
/// `priors`, `distortion`, `id`); unknown keys are rejected. Returns the published
/// document, already audited.
#[wasm_bindgen(js_name = design)]
pub fn design(method: &str, request: &str) -> Result<WasmDocument, JsValue> {
    let req: DesignRequest = serde_json::from_str(request).map_err(|e| js_error(Error::from_parser(e)))?;
    run(method, req).map(|doc| WasmDocument { doc }).map_err(js_error)
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
    to_js(&if project { e.with_projection() } else { e })
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
#[wasm_bindgen(js_name = designContinuous)]
pub fn design_continuous(request: &str) -> Result<crate::continuous::WasmContinuousDocument, JsValue> {
    let r: ContinuousRequestJson = serde_json::from_str(request).map_err(|e| js_error(Error::from_parser(e)))?;
    let req = privlift_design::continuous::design::ContinuousRequest {
        method: r.method,
        domain: r.domain,
        prior: r.prior,
        epsilon: r.epsilon,
        delta: r.delta,
        id: r.id,
        max_verify_work: r.max_verify_work,
    };
    privlift_design::continuous::design::design_continuous(&req)
        .map(|doc| crate::continuous::WasmContinuousDocument { doc })
        .map_err(js_error)
}

/// The continuous design methods this build knows.
#[wasm_bindgen(js_name = continuousDesignMethods)]
pub fn continuous_design_methods() -> Vec<String> {
    privlift_design::continuous::design::CONTINUOUS_METHODS.iter().map(|m| String::from(*m)).collect()
}
