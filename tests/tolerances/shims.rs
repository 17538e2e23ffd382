// A file compiled for tests only (`#[cfg(test)] mod shims;` in lib.rs): not read.
pub fn shim(x: f64) -> bool {
    x < 1e-12
}
