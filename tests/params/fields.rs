// The fixture of scripts/check-params.mjs's public fields (never compiled): each line
// of expect.txt is one finding, in order.
pub struct Claim {
    pub eps: f64,
    #[serde(default)]
    pub delta: Option<f64>,
    pub(crate) p_keep: f64,
    keep: f64,
    pub sigma: f64,
    pub eps_typed: Epsilon,
}

pub struct Generic<T: Into<f64>> {
    pub q: f64,
    pub inner: T,
}

pub struct Tuple(pub f64);

pub enum Notion {
    Lip { eps: f64 },
    Alip {
        /// εl.
        eps_l: f64,
        order: f64,
    },
    Unit,
    Pair(f64, f64),
}

struct Private {
    pub eps: f64,
}

// pub struct Commented { pub eps: f64 }

#[cfg(test)]
mod tests {
    pub struct InTest {
        pub eps: f64,
    }
}
