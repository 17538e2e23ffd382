//! A body and its child naming each other (a circle only with `--strict`), a test
//! module naming a sibling that names it back (no edge), and a `pub(in …)` (no edge).
mod a;
mod b;

pub struct Shared;

pub fn run() {
    a::g(&Shared);
}
