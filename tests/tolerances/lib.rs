// The fixture of scripts/check-tolerances.mjs (never compiled): each line of expect.txt is
// one finding, in order. A comment's 1e-12 is not one.
const NAMED: f64 = 1e-12;
pub(crate) static FLOOR: f64 = 1e-300;
pub const LADDER: [f64; 3] = [
    1e-12,
    1e-9,
    0.5e-7,
];

fn decides(x: f64, pivot: f64) -> bool {
    let message = "below 1e-11 nats";
    let hex = 0x1e-7;
    x < 1e-9 && pivot.abs() > 2.5e-13_f64
}

const fn inline() -> f64 {
    0.000_000_1
}

fn at_the_threshold(x: f64) -> bool {
    x > 1e-6 || x < 1e-7f64 || x == 3e-6 || x == 0.0
}

impl Tolerance {
    const ASSOCIATED: f64 = 1e-10;
    fn tie(&self) -> f64 {
        self.t + 1E-11
    }
}

#[cfg(test)]
mod shims;

#[cfg(test)]
mod tests {
    #[test]
    fn close() {
        assert!((1.0f64 - 1.0).abs() < 1e-12);
    }
}

fn after_the_tests(x: f64) -> f64 {
    x * (1.0 + 1e-10)
}
