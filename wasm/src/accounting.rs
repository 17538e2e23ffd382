//! Accounting bindings: mirror [`privlift::accounting`] for the client-side ledger
//! (js/ledger.js). No maths here.

use alloc::vec::Vec;
use wasm_bindgen::prelude::*;

use crate::js_error;
use privlift::accounting;
use privlift::param::{Budget, Probability};

/// The ledger's leakages ε_k, each a [`Budget`] named `eps_k[k]`.
fn releases(eps: &[f64]) -> Result<Vec<Budget>, JsValue> {
    let named = |(k, &e): (usize, &f64)| Budget::new(&alloc::format!("eps_k[{k}]"), e);
    eps.iter().enumerate().map(named).collect::<privlift::Result<_>>().map_err(js_error)
}

/// Basic LDP composition: Σ ε_k, rounded up.
#[wasm_bindgen(js_name = composeLdp)]
pub fn compose_ldp(eps: Vec<f64>) -> Result<f64, JsValue> {
    accounting::compose_ldp(&releases(&eps)?).map_err(js_error)
}

/// Jiang et al. Thm 4: the LIP bound of n independent releases of the same X.
#[wasm_bindgen(js_name = composeLip)]
pub fn compose_lip(eps: Vec<f64>, pmin: f64) -> Result<f64, JsValue> {
    let eps = releases(&eps)?;
    let pmin = Probability::positive("pmin", pmin).map_err(js_error)?;
    accounting::compose_lip(&eps, pmin).map_err(js_error)
}

/// Prop 1: the LDP an ε-LIP mechanism can have when the smallest prior mass is `pmin`.
#[wasm_bindgen(js_name = lipToLdp)]
pub fn lip_to_ldp(eps: f64, pmin: f64) -> Result<f64, JsValue> {
    let eps = Budget::new("epsilon", eps).map_err(js_error)?;
    accounting::lip_to_ldp(eps, Probability::positive("pmin", pmin).map_err(js_error)?).map_err(js_error)
}

/// Thm 1 (converse): the LIP an ε-LDP mechanism has when the smallest prior mass is `pmin`.
#[wasm_bindgen(js_name = ldpToLip)]
pub fn ldp_to_lip(eps: f64, pmin: f64) -> Result<f64, JsValue> {
    let eps = Budget::new("epsilon", eps).map_err(js_error)?;
    accounting::ldp_to_lip(eps, Probability::new("pmin", pmin).map_err(js_error)?).map_err(js_error)
}
