//! `privlift simulate --db URL --dir MECHANISMS_DIR --users N [--seed S] [--truth OUT.json]
//! [--population POP.json]`: a synthetic population for a demo or a dry run of the
//! curator's pipeline. For each published document, N users draw their value (and
//! secret) from the document's own prior — or from its entry of POP.json, which may
//! differ from the prior the document was designed for — perturb it with the verified
//! mechanism, and their reports are stored as the collector would store them; `--truth`
//! writes the population's true histograms.
//!
//! A **simulation**: the randomness is [`DeterministicRngForTesting`], seeded, so the
//! same seed gives the same reports with the same ids, and running it again stores
//! nothing twice. Never a way to perturb a real user's value.

use std::sync::Arc;

use privlift::document::MechanismKind;
use privlift::open::OpenDocument;
use privlift::param::SUM_TOLERANCE;
use privlift::rng::DeterministicRngForTesting;
use privlift::verify::continuous::ContinuousPolicy;
use privlift::{Document, Error, Policy};
use rand::RngCore;
use serde_json::{json, Value};

use super::catalogue::{lattice_label, lattice_labels, Catalogue, Parsed, Published};
use super::failure::storage_failure;
use super::population::{Population, PopulationFile};
use super::store::{self, Report};
use crate::args;
use crate::error::CliError;

/// Most simulated users per mechanism.
const MAX_USERS: u64 = 10_000_000;
/// Reports per stored batch.
const BATCH: usize = 1000;

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("simulate", argv, &["db", "dir", "users", "seed", "truth", "population"], &[])?;
    if a.help {
        return crate::help::print("simulate");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}`")));
    }
    let db = a.value("db").ok_or_else(|| CliError::usage("`privlift simulate` needs `--db URL`"))?;
    super::check_database_url(db)?;
    let dir = a.value("dir").ok_or_else(|| CliError::usage("`privlift simulate` needs `--dir MECHANISMS_DIR`"))?;
    let users: u64 = a
        .value("users")
        .and_then(|u| u.parse().ok())
        .filter(|u| (1..=MAX_USERS).contains(u))
        .ok_or_else(|| CliError::usage(format!("`--users` must be a number from 1 to {MAX_USERS}")))?;
    let seed: u64 = match a.value("seed") {
        None => 1,
        Some(s) => s.parse().map_err(|_| CliError::usage(format!("`--seed` must be a number, got {s:?}")))?,
    };
    let populations: PopulationFile = match a.value("population") {
        Some(path) => crate::files::parse_file(path)?,
        None => PopulationFile::new(),
    };
    let mut store = store::open(db).map_err(storage_failure)?;
    let catalogue = Catalogue::load(dir, store.as_mut())?;
    for (id, pop) in &populations {
        let in_pop = |e| CliError::in_file(a.value("population").unwrap_or_default(), e);
        let Some(published) = catalogue.current(id) else {
            return Err(in_pop(Error::invalid(
                "population",
                format!("no published mechanism {}", privlift::error::Quoted(id)),
            )));
        };
        pop.check(id).map_err(in_pop)?;
        // Every value is checked before any report is stored.
        match &published.doc {
            Parsed::Discrete(doc) => pop.discrete_cells(id, doc).map(drop),
            Parsed::Continuous { doc, .. } => pop.lattice_weights(id, doc.lattice()).map(drop),
            Parsed::Open(doc) => open_population(id, doc, Some(pop)).map(drop),
        }
        .map_err(in_pop)?;
    }
    let mut truth = serde_json::Map::new();
    let mut stored = 0;
    for p in catalogue.published() {
        // A document that fails its own verification gets no users: no client would use it.
        let (reports, t) = match population(p, users, seed, populations.get(&p.id)) {
            Ok(r) => r,
            Err(e @ (Error::ClaimViolated { .. } | Error::PolicyViolated { .. })) => {
                eprintln!("privlift: simulate: skipping {} ({}: {e})", p.id, e.code());
                continue;
            }
            Err(e) => return Err(CliError::in_file(&p.id, e)),
        };
        for chunk in reports.chunks(BATCH) {
            stored += store.insert(chunk).map_err(storage_failure)?;
        }
        truth.insert(p.id.clone(), t);
    }
    eprintln!(
        "privlift: simulate: {users} users × {} mechanisms, {stored} new reports stored (the rest were there)",
        catalogue.len()
    );
    if let Some(path) = a.value("truth") {
        let text =
            serde_json::to_string_pretty(&Value::Object(truth)).map_err(|e| Error::Json { message: e.to_string() })?;
        std::fs::write(path, text + "\n").map_err(|e| CliError::io(format!("cannot write {path}"), e))?;
    }
    Ok(())
}

/// FNV-1a of the mechanism id: each mechanism's stream depends on the seed and its id
/// only, not on the other files in the directory.
fn stream_seed(seed: u64, id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A uniform draw in [0, 1) from 53 random bits.
fn uniform(rng: &mut DeterministicRngForTesting) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// An index drawn from the weights `w` (summing to about 1) by inversion.
fn draw(w: &[f64], rng: &mut DeterministicRngForTesting) -> usize {
    let total: f64 = w.iter().sum();
    let mut u = uniform(rng) * total;
    for (i, &p) in w.iter().enumerate() {
        if u < p {
            return i;
        }
        u -= p;
    }
    w.iter().rposition(|&p| p > 0.0).unwrap_or(0)
}

fn report_id(rng: &mut DeterministicRngForTesting) -> String {
    format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64())
}

/// The reports of `users` simulated users of `p` drawn from `pop` (else from the
/// document's prior), and their true histograms.
fn population(
    p: &Arc<Published>,
    users: u64,
    seed: u64,
    pop: Option<&Population>,
) -> Result<(Vec<Report>, Value), Error> {
    let mut rng = DeterministicRngForTesting::seed_from_u64(stream_seed(seed, &p.id));
    let mut reports = Vec::with_capacity(users as usize);
    let mut push = |output: String, rng: &mut DeterministicRngForTesting| {
        reports.push(Report { report_id: report_id(rng), version: p.version, output })
    };
    let truth = match &p.doc {
        Parsed::Discrete(doc) => {
            let (nx, ns) = (doc.input().len(), doc.secret().len());
            let joint = doc.p_sx();
            let flat: Vec<f64> = match pop {
                Some(pop) => pop.discrete_cells(&p.id, doc)?,
                None => (0..ns).flat_map(|s| (0..nx).map(move |x| (s, x))).map(|(s, x)| joint.get(s, x)).collect(),
            };
            let m = doc.verify(&Policy::default())?;
            let unary = matches!(doc.mechanism(), MechanismKind::Unary { .. });
            let (mut hx, mut hs) = (vec![0u64; nx], vec![0u64; ns]);
            for _ in 0..users {
                let cell = draw(&flat, &mut rng);
                let (s, x) = (cell / nx, cell % nx);
                hx[x] += 1;
                hs[s] += 1;
                let output = if unary {
                    m.perturb_bits(x, &mut rng)?.iter().map(|&b| if b { '1' } else { '0' }).collect()
                } else {
                    doc.output().labels()[m.perturb_with_secret(s, x, &mut rng)?].to_string()
                };
                push(output, &mut rng);
            }
            histograms(doc, users, &hx, &hs)
        }
        Parsed::Open(doc) => {
            let m = doc.verify(&Policy::default())?;
            let (values, weights) = open_population(&p.id, doc, pop)?;
            let mut h = vec![0u64; values.len()];
            for _ in 0..users {
                let i = draw(&weights, &mut rng);
                h[i] += 1;
                push(m.perturb(&values[i], &mut rng)?.canonical(), &mut rng);
            }
            json!({"n": users, "values": values, "p": h.iter().map(|&c| c as f64 / users as f64).collect::<Vec<_>>()})
        }
        Parsed::Continuous { doc, .. } => {
            let m = doc.verify(&ContinuousPolicy::default())?;
            let lattice = doc.lattice();
            let mut h = vec![0u64; lattice.len()];
            let weights = match pop {
                Some(pop) => pop.lattice_weights(&p.id, lattice)?,
                None => doc.lattice_prior().to_vec(),
            };
            for _ in 0..users {
                let k = draw(&weights, &mut rng);
                h[k] += 1;
                let j = m.perturb_index(lattice.value(k as i64), &mut rng)?;
                push(lattice_label(lattice, j), &mut rng);
            }
            let mean =
                h.iter().enumerate().map(|(k, &c)| c as f64 * lattice.value(k as i64)).sum::<f64>() / users as f64;
            json!({
                "n": users,
                "labels": lattice_labels(lattice),
                "p": h.iter().map(|&c| c as f64 / users as f64).collect::<Vec<_>>(),
                "mean": mean,
            })
        }
    };
    let mut truth = truth;
    truth["sha256"] = Value::from(p.sha256.clone());
    Ok((reports, truth))
}

/// An open-domain document's population: POP.json's entry, else its prior when that
/// lists the whole mass (no value can be drawn for "any other value"). Each value is
/// checked against the document's domain.
fn open_population(id: &str, doc: &OpenDocument, pop: Option<&Population>) -> Result<(Vec<String>, Vec<f64>), Error> {
    let (values, weights) = match (pop, doc.prior()) {
        (Some(pop), _) => {
            let values =
                (0..pop.values.len()).map(|i| pop.string(id, i).map(str::to_string)).collect::<Result<_, _>>()?;
            (values, pop.p.clone())
        }
        (None, Some(prior)) if prior.other_mass() <= SUM_TOLERANCE => (prior.values().to_vec(), prior.p().to_vec()),
        (None, _) => {
            return Err(Error::invalid(
                "population",
                format!(
                    "open-domain mechanism {} has no prior over every value: give its population in --population",
                    privlift::error::Quoted(id)
                ),
            ))
        }
    };
    for (i, v) in values.iter().enumerate() {
        doc.check_value(v).map_err(|e| {
            Error::invalid(format!("population {} values[{i}]", privlift::error::Quoted(id)), e.to_string())
        })?;
    }
    Ok((values, weights))
}

fn histograms(doc: &Document, users: u64, hx: &[u64], hs: &[u64]) -> Value {
    let freq = |h: &[u64]| h.iter().map(|&c| c as f64 / users as f64).collect::<Vec<_>>();
    let mut t = json!({"n": users, "labels": doc.input().labels(), "p": freq(hx)});
    if doc.has_secret() {
        t["secret"] = json!({"labels": doc.secret().labels(), "p": freq(hs)});
    }
    t
}
