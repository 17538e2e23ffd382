//! A thin, checked layer over `microlp` (see the module docs of [`crate::design`]).

use alloc::vec::Vec;
use microlp::{ComparisonOp, OptimizationDirection, Problem, Variable};

use privlift::document::Matrix;
use privlift::error::{Error, Result};

/// Each constraint of a solved LP holds to this: the tightest feasibility tolerance microlp
/// accepts, so that a solution's rounding is as small as the solver allows.
pub(crate) const FEASIBILITY: f64 = 1e-10;

/// A linear program over non-negative (and, with [`Lp::free_var`], free) variables.
pub(crate) struct Lp {
    problem: Problem,
    vars: Vec<Variable>,
}

pub(crate) use microlp::ComparisonOp as Cmp;

impl Lp {
    pub fn minimise() -> Self {
        Lp { problem: Problem::new(OptimizationDirection::Minimize), vars: Vec::new() }
    }
    /// A variable in [0, ∞) with objective coefficient `c`; returns its index.
    pub fn var(&mut self, c: f64) -> usize {
        self.vars.push(self.problem.add_var(c, (0.0, f64::INFINITY)));
        self.vars.len() - 1
    }
    /// A free variable in (−∞, ∞) with objective coefficient `c`; returns its index.
    pub fn free_var(&mut self, c: f64) -> usize {
        self.vars.push(self.problem.add_var(c, (f64::NEG_INFINITY, f64::INFINITY)));
        self.vars.len() - 1
    }
    /// Σ coef·var (op) rhs, with variables given by index.
    pub fn constraint(&mut self, terms: &[(usize, f64)], op: ComparisonOp, rhs: f64) {
        let t: Vec<(Variable, f64)> = terms.iter().map(|&(i, c)| (self.vars[i], c)).collect();
        self.problem.add_constraint(t.as_slice(), op, rhs);
    }
    /// Solves; returns the variable values (in index order) and the objective.
    pub fn solve(&self, what: &str) -> Result<(Vec<f64>, f64)> {
        let mut options = microlp::SolveOptions::default();
        options.tolerances.feasibility = FEASIBILITY;
        // No presolve: on the designers' LPs its pass costs more than it saves the solve
        // (criterion's `design_lp` and `optimal` groups, natively and in wasm).
        options.presolve = false;
        options.time_limit = crate::deadline::remaining();
        let outcome = self.problem.solve_with(options).map_err(|e| match e {
            microlp::Error::Infeasible => Error::Infeasible { reason: alloc::format!("{what}: the LP is infeasible") },
            other => Error::DesignFailed { reason: alloc::format!("{what}: LP solver: {other}") },
        })?;
        let sol = outcome
            .into_solution()
            .map_err(|_| crate::deadline::stopped(alloc::format!("{what}: the LP reached its deadline")))?;
        Ok((self.vars.iter().map(|&v| sol.var_value(v)).collect(), sol.objective()))
    }
}

/// Cleans an LP solution into a row-stochastic matrix: entries within `tol` below 0 are
/// set to 0 and each row is renormalised. An entry further below 0, or a row sum off by
/// more than `tol`, is a numerical failure.
pub(crate) fn clean_rows(rows: usize, cols: usize, mut v: Vec<f64>, tol: f64, what: &str) -> Result<Matrix> {
    for x in 0..rows {
        let r = &mut v[x * cols..(x + 1) * cols];
        for e in r.iter_mut() {
            if !e.is_finite() || *e < -tol {
                return Err(Error::DesignFailed { reason: alloc::format!("{what}: LP returned entry {e} in row {x}") });
            }
            if *e < 0.0 {
                *e = 0.0;
            }
        }
        let s: f64 = r.iter().sum();
        if (s - 1.0).abs() > tol {
            return Err(Error::DesignFailed { reason: alloc::format!("{what}: LP row {x} sums to {s}") });
        }
        r.iter_mut().for_each(|e| *e /= s);
    }
    Ok(Matrix::from_flat(rows, cols, v))
}
