//! `--population POP.json` of `privlift simulate`: per mechanism id, the distribution
//! the simulated users draw their value from instead of the document's prior —
//! `{"ID": {"values": [...], "p": [...]}}`, for every kind (an input label of a discrete
//! document, a lattice value of a continuous one, a string of an open domain).

use std::collections::BTreeMap;

use privlift::document::Lattice;
use privlift::error::Quoted;
use privlift::param::SUM_TOLERANCE;
use privlift::{Document, Error};
use serde::Deserialize;

/// One mechanism's population.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Population {
    /// Strings (labels, open-domain values) or numbers (lattice values).
    pub values: Vec<serde_json::Value>,
    pub p: Vec<f64>,
}

/// `POP.json`.
pub type PopulationFile = BTreeMap<String, Population>;

fn invalid(id: &str, what: String) -> Error {
    Error::invalid(format!("population {}", Quoted(id)), what)
}

impl Population {
    /// `p` is a distribution over as many values as `values`.
    ///
    /// # Errors
    /// `invalid_argument` naming the mechanism id (never a value).
    pub fn check(&self, id: &str) -> Result<(), Error> {
        if self.values.len() != self.p.len() || self.values.is_empty() {
            return Err(invalid(id, format!("{} values but {} probabilities", self.values.len(), self.p.len())));
        }
        if let Some(i) = self.p.iter().position(|p| !(p.is_finite() && *p >= 0.0)) {
            return Err(invalid(id, format!("p[{i}] must be a probability")));
        }
        let sum: f64 = self.p.iter().sum();
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            return Err(invalid(id, "the probabilities must add up to 1".into()));
        }
        Ok(())
    }

    /// The value `i` as a string (`invalid_argument` if it is not one).
    pub fn string(&self, id: &str, i: usize) -> Result<&str, Error> {
        self.values[i].as_str().ok_or_else(|| invalid(id, format!("values[{i}] must be a string")))
    }

    /// The population over a discrete document's cells (s, x), row-major: P_pop(x)·P(s|x),
    /// with P(s|x) from the document's joint.
    pub fn discrete_cells(&self, id: &str, doc: &Document) -> Result<Vec<f64>, Error> {
        let (nx, ns) = (doc.input().len(), doc.secret().len());
        let mut px = vec![0.0; nx];
        for (i, &p) in self.p.iter().enumerate() {
            let x = doc
                .input()
                .position(self.string(id, i)?)
                .ok_or_else(|| invalid(id, format!("values[{i}] is not an input label of this mechanism")))?;
            px[x] += p;
        }
        let joint = doc.p_sx();
        let mut cells = vec![0.0; ns * nx];
        for (x, &p) in px.iter().enumerate().filter(|(_, p)| **p > 0.0) {
            let column: f64 = (0..ns).map(|s| joint.get(s, x)).sum();
            if column <= 0.0 {
                return Err(invalid(id, format!("input {x} has prior 0: its secret has no distribution")));
            }
            for s in 0..ns {
                cells[s * nx + x] = p * joint.get(s, x) / column;
            }
        }
        Ok(cells)
    }

    /// The population over a continuous document's lattice points.
    pub fn lattice_weights(&self, id: &str, lattice: &Lattice) -> Result<Vec<f64>, Error> {
        let mut w = vec![0.0; lattice.len()];
        for (i, &p) in self.p.iter().enumerate() {
            let x = match &self.values[i] {
                serde_json::Value::Number(n) => n.as_f64(),
                serde_json::Value::String(s) => s.parse().ok(),
                _ => None,
            };
            let k = x
                .and_then(|x| lattice.index_of(x).ok())
                .ok_or_else(|| invalid(id, format!("values[{i}] is not a point of this mechanism's lattice")))?;
            w[k] += p;
        }
        Ok(w)
    }
}
