//! Core errors as JS errors: a JS `Error` named `PrivliftError` whose `code` is the core
//! error's stable code, so that callers branch on `err.code`, never on a message.

use privlift::error::Error;
use wasm_bindgen::JsValue;

/// Converts a core error into a JS `Error` with `code`.
pub(crate) fn js_error(e: Error) -> JsValue {
    coded_error(e.code(), &alloc::format!("{e}"))
}

/// A JS `Error` named `PrivliftError` with `message` and the property `code` (one of
/// [`Error::CODES`]).
pub(crate) fn coded_error(code: &str, message: &str) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("PrivliftError");
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(code));
    err.into()
}
