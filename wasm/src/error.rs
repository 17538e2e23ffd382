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

/// The refusal `needs_async` of a document that costs at least `work` units, above the
/// calling thread's limit on a synchronous verification: a `PrivliftError` whose `work`
/// the JS wrapper reads to word its own (the one message of that refusal).
#[cfg(feature = "client")]
pub(crate) fn needs_async(work: f64) -> JsValue {
    let err = coded_error("needs_async", "verifying this document costs more than the calling thread runs");
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("work"), &JsValue::from_f64(work));
    err
}

/// The `code` of an error [`coded_error`] made.
#[cfg(feature = "client")]
pub(crate) fn code_of(err: &JsValue) -> Option<alloc::string::String> {
    js_sys::Reflect::get(err, &JsValue::from_str("code")).ok()?.as_string()
}
