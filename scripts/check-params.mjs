#!/usr/bin/env node
// Lists every `pub fn` in the core (src/) and the curator (design/src/) that takes a raw
// f64 for ε, δ or a probability, and every public field that holds one (a `pub` field of a
// `pub struct`, a field of a `pub enum`'s variant), and fails if there is one: those
// numbers are the types of src/param.rs (`Epsilon`, `Budget`, `Delta`, `Probability`),
// validated once where a number enters (a document, a request, the CLI's flags, the
// bindings), so that each rule is written once and no value can skip it. A parameter or
// field is such a number when its name, split at `_`, has a word of PARAM_WORDS (`eps`,
// `delta_target`, `p1min`, …) and its type is `f64` or `Option<f64>`. Code compiled for
// tests only (`#[cfg(test)]` items and the files of `#[cfg(test)] mod x;`) is skipped:
// tests keep their literals. A word that is a probability in some files only is one
// there (PROBABILITY_NAMES: `lambda` is the sampling mechanism's λ in its files, while
// design/src/lift.rs names the max-lift Λ so). It first checks itself on known sources
// (`selfTest`) and on the fixture tests/params/ (its `expect.txt` the findings, in
// order), so a checker that finds nothing fails too. Usage:
//   node scripts/check-params.mjs [DIR…]      (default: src design/src)
import { readFileSync } from 'node:fs';
import { checkFixture, close, compiled, rsFiles } from './rust-source.mjs';

/** The words that make a parameter name an ε, a δ or a probability. */
const PARAM_WORDS = new Set([
  'eps', 'epsilon', 'delta', 'p', 'q', 'q01', 'q10', 'prob', 'probability', 'keep', 'pmin', 'p1min',
]);

/**
 * Words that make a parameter name a probability in the listed files only (`file →
 * words`), each with its reason.
 */
const PROBABILITY_NAMES = new Map([
  ...[
    'src/sample/lattice.rs', 'src/document/continuous.rs', 'src/leakage/lattice.rs',
    'design/src/continuous/sampling.rs', 'design/src/continuous/design.rs', 'design/src/lattice_estimate.rs',
  ].map((f) => [f, { words: ['lambda'], reason: 'the sampling mechanism\'s release probability λ (eq 20)' }]),
]);

/** Files allowed to take a raw f64 there, each with its reason. */
const ALLOWED = new Map([
  ['src/param.rs', 'the constructors that validate a number into its type: the boundary itself'],
]);

/**
 * Types (`file:Type`) or single fields (`file:Type.field`) whose public fields may hold
 * a raw f64 named as an ε, δ or probability, each with its reason: wire records (the codec's numbers as written, read once into the domain
 * types), figures the library computes (audits, receipts: results, never read back as a
 * parameter) and request records (read once into the types by their own reader).
 */
const ALLOWED_FIELDS = new Map([
  ...['ClaimsJson', 'AlipJson', 'BpLipJson', 'AlphaLiftJson', 'SrlipJson'].map((t) => [`src/document/wire.rs:${t}`, 'a wire record: read once by `Claims::from_wire`']),
  ['src/leakage/lattice.rs:LatticeAudit', 'an audited figure'],
  ['src/leakage/mod.rs:Alip', 'an audited figure'],
  ['src/leakage/srlip.rs:Srlip', 'an audited figure'],
  ['src/verify/continuous.rs:AuditedEpsDelta', 'an audited figure'],
  ['src/verify/continuous.rs:ContinuousAudit', 'an audited figure'],
  ['src/open/verify.rs:OpenAudit', 'an audited figure'],
  ['src/mechanism/receipt.rs:ReceiptSection', 'a receipt\'s figure'],
  ['src/mechanism/continuous.rs:ContinuousReceipt', 'a receipt\'s figure'],
  ['src/open/receipt.rs:OpenReceipt', 'a receipt\'s figure'],
  ['design/src/continuous/gaussian.rs:LipDelta', 'a calculated figure'],
  ['design/src/continuous/laplace.rs:LaplaceScales', 'a calculated figure'],
  ['design/src/open/mod.rs:Randomiser', 'the keep of a verified document, quantised as the sampler draws it'],
  ['design/src/request.rs:LiftBudget', 'a request record: read once into a `Notion` by `LiftBudget::notion`'],
  ['design/src/request.rs:DesignRequest', 'a request record: its budgets read once by its designer\'s arm'],
  ['design/src/continuous/design.rs:ContinuousRequest.delta', 'δ\'s rule depends on the method ((0, 1), or unused): read once by `design_continuous`'],
]);

const RAW = /^(?:&\s*)?(?:f64|Option\s*<\s*f64\s*>)$/;

/** Whether `name`, split at `_`, has a word of PARAM_WORDS or of `file`'s entry in `local` (PROBABILITY_NAMES). */
const named = (name, file, local) => name.split('_').some((w) => PARAM_WORDS.has(w) || !!local.get(file)?.words.includes(w));

/** Splits a parameter list at its top-level commas. */
function params(list) {
  const out = [];
  let depth = 0, start = 0;
  for (let j = 0; j < list.length; j++) {
    const c = list[j];
    if (c === '-' && list[j + 1] === '>') { j++; continue; }
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c)) depth--;
    else if (c === ',' && depth === 0) { out.push(list.slice(start, j)); start = j + 1; }
  }
  out.push(list.slice(start));
  return out.map((p) => p.trim()).filter(Boolean);
}

/**
 * Every offending parameter of `sources` (a Map from path to Rust text), as lines;
 * `local` the file-local probability words (PROBABILITY_NAMES unless a test's own).
 */
function scan(sources, local = PROBABILITY_NAMES) {
  const found = [];
  for (const [file, s] of compiled(sources)) {
    if (ALLOWED.has(file)) continue;
    const fns = /\bpub\s+(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(\w+)\s*/g;
    for (const m of s.matchAll(fns)) {
      let j = m.index + m[0].length;
      if (s[j] === '<') j = close(s, j);
      while (/\s/.test(s[j])) j++;
      if (s[j] !== '(') continue;
      const line = s.slice(0, m.index).split('\n').length;
      for (const p of params(s.slice(j + 1, close(s, j) - 1))) {
        const colon = p.indexOf(':');
        if (colon < 0) continue; // self
        const name = p.slice(0, colon).replace(/^mut\s+/, '').trim();
        const type = p.slice(colon + 1).trim();
        if (RAW.test(type) && named(name, file, local)) {
          found.push(`${file}:${line}: pub fn ${m[1]}(… ${name}: ${type} …)`);
        }
      }
    }
    found.push(...fields(file, s, local));
  }
  return found;
}

/** The `name: type` fields of a braced field list, attributes dropped; `pub` ones only when `pubOnly`. */
function fieldList(list, pubOnly) {
  const out = [];
  for (const f of params(list.replace(/#\[[^\]]*\]/g, ' '))) {
    const m = /^(pub(?:\([^)]*\))?\s+)?(\w+)\s*:([\s\S]*)$/.exec(f);
    if (m && (!pubOnly || (m[1] && !m[1].includes('(')))) out.push([m[2], m[3].trim()]);
  }
  return out;
}

/** Public fields of `s` (a stripped file) holding a raw f64 for ε, δ or a probability. */
function fields(file, s, local) {
  const found = [];
  for (const m of s.matchAll(/\bpub\s+(struct|enum)\s+(\w+)\s*/g)) {
    let j = m.index + m[0].length;
    if (s[j] === '<') j = close(s, j);
    while (j < s.length && s[j] !== '{' && s[j] !== ';' && s[j] !== '(') j++;
    if (s[j] !== '{') continue; // a unit or tuple struct: no named field
    const body = s.slice(j + 1, close(s, j) - 1);
    const line = s.slice(0, m.index).split('\n').length;
    const lists = m[1] === 'struct'
      ? [['', body, true]]
      : [...body.matchAll(/(\w+)\s*\{/g)].map((v) => {
        const at = body.indexOf('{', v.index);
        return [`::${v[1]}`, body.slice(at + 1, close(body, at) - 1), false];
      });
    for (const [variant, list, pubOnly] of lists) {
      for (const [name, type] of fieldList(list, pubOnly)) {
        const allowed = ALLOWED_FIELDS.has(`${file}:${m[2]}`) || ALLOWED_FIELDS.has(`${file}:${m[2]}.${name}`);
        if (!allowed && RAW.test(type) && named(name, file, local)) found.push(`${file}:${line}: pub ${m[1]} ${m[2]}${variant} { ${name}: ${type} }`);
      }
    }
  }
  return found;
}

/** The checker on sources whose verdicts are known: it must find exactly these. */
function selfTest() {
  const sources = new Map([
    ['t/lib.rs', [
      'pub fn a(eps: f64) {}',                                    // found
      'pub fn b<T: Into<f64>>(x: T,\n    delta_target: Option<f64>,\n) -> f64 { 0.0 }', // found
      'impl S { pub fn c(&self, keep: &f64) {} }',                // found
      'pub fn d(eps: Epsilon, sigma: f64, f: impl Fn(f64) -> f64) {}',
      'pub(crate) fn e(eps: f64) {}',
      'fn f(p: f64) {}',
      '// pub fn g(eps: f64) {}',
      'const S: &str = "pub fn h(eps: f64)"; const C: char = \'(\';',
      '#[cfg(test)]\nmod tests { pub fn i(eps: f64) {} }',
      '#[cfg(test)]\nmod shims;',
      'pub fn j(p1min: f64, pmin_x: f64) {}',                     // found twice
    ].join('\n')],
    ['t/shims.rs', 'pub fn k(eps: f64) {}'],
    ['src/sample/lattice.rs', 'pub fn sampling(lattice: Lattice, prior: Vec<f64>, lambda: f64) {}'], // found
    ['design/src/lift.rs', 'pub fn max_lift(lambda: f64) {}'], // Λ, no probability
  ]);
  const want = [
    't/lib.rs:1: pub fn a', 't/lib.rs:2: pub fn b', 't/lib.rs:5: pub fn c', 't/lib.rs:15: pub fn j', 't/lib.rs:15: pub fn j',
    'src/sample/lattice.rs:1: pub fn sampling',
  ];
  const got = scan(sources).map((f) => f.slice(0, f.indexOf('(')));
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    console.error(`check-params self-test: found\n  ${got.join('\n  ')}\nexpected\n  ${want.join('\n  ')}`);
    process.exit(1);
  }
}

selfTest();
// The fixture's sampling.rs stands for the files PROBABILITY_NAMES lists.
const FIXTURE_NAMES = new Map([['sampling.rs', { words: ['lambda'], reason: 'the fixture\'s sampling mechanism' }]]);
checkFixture('check-params', 'tests/params', (sources) => scan(sources, FIXTURE_NAMES));
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'design/src'];
const files = roots.flatMap(rsFiles).sort();
const found = scan(new Map(files.map((f) => [f, readFileSync(f, 'utf8')])));
if (found.length) {
  console.error(`${found.length} public parameter(s) or field(s) hold a raw f64 for ε, δ or a probability; use the types of src/param.rs:`);
  for (const f of found) console.error(`  ${f}`);
  process.exit(1);
}
console.log(`check-params: no pub fn or public field in ${roots.join(', ')} holds a raw f64 for ε, δ or a probability (${files.length} files)`);
