// The fixture of scripts/check-params.mjs (never compiled): `lambda` is no probability
// in a file the file-local words do not list (the max-lift Λ).
pub fn max_lift(lambda: f64) -> f64 {}

pub struct Lift {
    pub lambda: f64,
}
