// The fixture of scripts/check-params.mjs's file-local probability words (never
// compiled): the fixture run gives this file the word `lambda`, as PROBABILITY_NAMES
// gives the sampling mechanism's files; lift.rs keeps its raw Λ.
pub fn sampling(lattice: Lattice, prior: Vec<f64>, lambda: f64) -> Result<Self> {}

pub fn typed(lattice: Lattice, lambda: Probability) -> Result<Self> {}

pub fn with_rate(lambda_min: Option<f64>, sigma: f64) {}

pub enum Mechanism {
    Sampling { lambda: f64 },
    Typed { lambda: Probability },
}
