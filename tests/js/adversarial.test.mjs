// The hostile-document corpus (tests/adversarial/, see its README) in the wasm build under
// Node, by the same rules as the native runner (tests/adversarial.rs): each document is
// refused with its expected code, or verified and held to the receipt and policy properties.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';

import { parseMechanism, OpenMechanismDocument, PrivliftError, errorCodes } from 'privlift';
import { parseContinuousMechanism, CONTINUOUS_KINDS } from 'privlift/continuous';

const DIR = new URL('../adversarial/', import.meta.url);

/** A K × K identity claiming ldp_x = 0, with P priors in a bp_lip claim (README). */
function generated({ identity: k, bp_lip_priors: priors = 0 }) {
  const rows = Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (x === y ? 1 : 0)));
  let claims = { ldp_x: 0 };
  if (priors > 0) {
    const ps = Array.from({ length: priors }, (_, j) => {
      const p = Array(k).fill(1 / (2 * k));
      p[j % k] += 0.5;
      return p;
    });
    claims = { bp_lip: { eps: 0, priors: ps } };
  }
  return JSON.stringify({
    format: 'privlift-mechanism', version: 1, id: `identity-${k}`,
    labels: Array.from({ length: k }, (_, i) => `v${i}`), prior: Array(k).fill(1 / k), claims,
    mechanism: { kind: 'matrix', p_y_given_x: rows },
  });
}

function documentText(c) {
  if (typeof c.document_text === 'string') return c.document_text;
  if (c.generate) return generated(c.generate);
  return JSON.stringify(c.document);
}

function isContinuous(text) {
  try {
    // JSON.parse refuses a byte order mark; the core reads past one.
    return CONTINUOUS_KINDS.includes(JSON.parse(text.replace(/^\uFEFF/, ''))?.mechanism?.kind);
  } catch {
    return false; // not JSON: the discrete reader reports it
  }
}

/** Control, bidi and invisible formatting characters (`privlift::error::hidden`). */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;
/** Most characters a refusal's message has (tests/common/corpus.rs, MAX_MESSAGE_CHARS). */
const MAX_MESSAGE_CHARS = 1200;

const within = (actual, bound) => actual <= bound * (1 + 1e-9) + 1e-12;

function withinBounds(section) {
  return section.entries.every((e) => (e.prior === 0 ? e.lift === 0
    : e.lift >= section.minLiftBound && e.lift <= section.maxLiftBound));
}

function discreteProperties(name, c, m) {
  const receipts = [];
  if (m.kind === 'unary') {
    m.labels.forEach((_, x) => {
      if (receipts.length < 8 && m.prior[x] > 0) receipts.push(m.receiptBits(m.perturbBits(x)));
    });
  } else {
    for (let y = 0; y < Math.min(m.outputLabels.length, 256); y++) {
      try {
        receipts.push(m.receipt(y));
      } catch (e) {
        assert.equal(e.code, 'unknown_output', `${name}: receipt(${y}): ${e.message}`);
      }
    }
  }
  assert.ok(receipts.length > 0, `${name}: no receipt to check`);
  const [lo, hi] = m.receiptBounds();
  const hasSecret = c.document?.secret !== undefined;
  for (const r of receipts) {
    assert.ok(withinBounds(r) && (r.secret === undefined || withinBounds(r.secret)), `${name}: a lift outside its bounds`);
    assert.equal(r.entries.length, m.labels.length, `${name}: one X row per input value`);
    if (c.document) assert.equal(r.secret !== undefined, hasSecret, `${name}: the S section iff S is declared`);
    assert.deepEqual([r.minLiftBound, r.maxLiftBound], [lo, hi]);
  }
  const x = m.leakageX();
  const limits = { maxLdpX: x.ldpX, maxLdp: x.ldpX, maxLip: x.lip, maxEpsL: x.alip.epsL, maxEpsU: x.alip.epsU };
  for (const [k, actual] of Object.entries(limits)) {
    if (c.policy?.[k] !== undefined) assert.ok(within(actual, c.policy[k]), `${name}: ${k} = ${c.policy[k]} but audited ${actual}`);
  }
  for (const v of c.expect.refused_inputs ?? []) {
    assert.throws(() => m.perturb(v), (e) => e.code === 'unknown_value' && !e.message.includes(v), `${name}: ${v}`);
  }
}

/** An open mechanism: every receipt's lifts within e^-epsL..e^epsU; refused values not echoed. */
function openProperties(name, c, m) {
  const { epsL, epsU } = m.audit();
  const inside = (lo, hi) => lo >= Math.exp(-epsL) * (1 - 1e-12) && hi <= Math.exp(epsU) * (1 + 1e-12);
  for (const v of ['', 'apple', 'a longer value'].filter((v) => new TextEncoder().encode(v).length <= m.maxBytes)) {
    const r = m.receipt(m.perturb(v));
    const unlisted = r.otherMass === 0 ? true : inside(r.unlistedMinLift, r.unlistedMaxLift);
    assert.ok(unlisted && r.listed.every((e) => inside(e.minLift, e.maxLift)), `${name}: a lift outside its bounds`);
  }
  for (const v of c.expect.refused_inputs ?? []) {
    assert.throws(() => m.perturb(v), (e) => e.code === 'invalid_argument' && !e.message.includes(v), `${name}: ${v}`);
  }
}

function continuousProperties(name, m) {
  const e = m.audit().lipPureEps;
  const { lo, hi } = m.domain;
  for (const x of [lo, (lo + hi) / 2, hi]) {
    const r = m.receipt(m.perturb(x));
    assert.ok(r.minRatio >= Math.exp(-e) * (1 - 1e-12) && r.maxRatio <= Math.exp(e) * (1 + 1e-12), name);
  }
}

async function run(name, c) {
  const text = documentText(c);
  if (isContinuous(text)) {
    const doc = await parseContinuousMechanism(text);
    try {
      continuousProperties(name, doc.verify(c.policy));
    } finally {
      doc.free();
    }
  } else {
    // Read within the policy's budget, as `privlift verify` reads it.
    const doc = await parseMechanism(text, c.policy);
    try {
      if (doc instanceof OpenMechanismDocument) openProperties(name, c, doc.verify(c.policy));
      else discreteProperties(name, c, doc.verify(c.policy));
    } finally {
      doc.free();
    }
  }
}

test('every hostile document is refused or verified as the corpus says (wasm)', async () => {
  const files = (await readdir(DIR)).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length >= 40, `the corpus has ${files.length} documents`);
  let ran = 0;
  for (const f of files) {
    const c = JSON.parse(await readFile(new URL(f, DIR), 'utf8'));
    assert.equal(typeof c.about, 'string', `${f}: every case says what it attacks`);
    if (c.native_only) continue;
    let err;
    try {
      await run(f, c);
    } catch (e) {
      err = e;
    }
    if (c.expect.error) {
      assert.ok(err instanceof PrivliftError, `${f}: expected ${c.expect.error}, got ${err ? `${err.name}: ${err.message}` : 'acceptance'}`);
      assert.equal(err.code, c.expect.error, `${f}: ${err.message}`);
      assert.ok(errorCodes.includes(err.code));
      assert.ok(!HIDDEN.test(err.message), `${f}: a raw control or bidi character in ${JSON.stringify(err.message)}`);
      assert.ok([...err.message].length <= MAX_MESSAGE_CHARS, `${f}: a message of ${[...err.message].length} characters`);
    } else {
      assert.equal(err, undefined, `${f}: refused (${err?.code}: ${err?.message}) but expected to verify`);
      assert.equal(c.expect.verified, true, f);
    }
    ran += 1;
  }
  assert.ok(ran >= files.length - 2, `ran ${ran} of ${files.length}`);
});
