// One parse: parseMechanism / parseContinuousMechanism (and the fetch* functions) hand the
// document to wasm once, as UTF-8 bytes, and the Rust parser alone reads it, its
// `mechanism.kind` included. No JSON.parse of the document in JS, no decoding of its bytes
// to a JS string; a document of the other family keeps its typed error; bytes that are
// not UTF-8 are `json`.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';

import { parseMechanism, fetchMechanism, PrivliftError } from 'privlift';
import { parseContinuousMechanism, fetchContinuousMechanism, CONTINUOUS_KINDS } from 'privlift/continuous';
import * as rawDiscrete from '../../pkg/privlift.js';
import { callingThread, HASHED_FIRST } from '../../js/common.js';

// How documents are read is this file's matter; the thread their verification runs on is
// offverify.test.mjs's: here a synchronous verify() takes what the budget allows.
callingThread.maxVerifyWork = Infinity;

const utf8 = (s) => new TextEncoder().encode(s);

/** k-ary randomized response with ε = 1, as a full k × k matrix document. */
function krrDocument(k, { labels = Array.from({ length: k }, (_, i) => `v${i}`), id = `krr-${k}` } = {}) {
  const e = Math.E;
  const d = e + k - 1;
  return {
    format: 'privlift-mechanism',
    version: 1,
    id,
    labels,
    prior: Array(k).fill(1 / k),
    mechanism: {
      kind: 'matrix',
      p_y_given_x: Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (x === y ? e / d : 1 / d))),
    },
    claims: { ldp_x: 1 },
  };
}

/** A continuous document (the core's own doc example): Gaussian noise on [0, 100], step 0.5. */
function gaussianDocument({ id = 'age-gaussian-lip', sigma = 228 } = {}) {
  return {
    format: 'privlift-mechanism',
    version: 1,
    id,
    domain: { lo: 0, hi: 100, step: 0.5 },
    prior: { gaussian: { mean: 40, sd: 12 } },
    mechanism: { kind: 'gaussian', sigma },
    claims: { lip: { eps: 1, delta: 1e-5 } },
  };
}

const continuousDocuments = {
  gaussian: gaussianDocument(),
  laplace: { ...gaussianDocument({ id: 'laplace' }), mechanism: { kind: 'laplace', b: 300 } },
  sampling: { ...gaussianDocument({ id: 'sampling' }), mechanism: { kind: 'sampling', lambda: 0.1 } },
};

/** The same document as every input the API takes: object, string, bytes, buffer, views. */
function forms(doc) {
  const text = JSON.stringify(doc);
  const bytes = utf8(text);
  const padded = new Uint8Array(bytes.length + 8);
  padded.set(bytes, 3);
  return {
    object: doc,
    string: text,
    Uint8Array: bytes,
    ArrayBuffer: bytes.slice().buffer,
    'Uint8Array at an offset': padded.subarray(3, 3 + bytes.length),
    DataView: new DataView(padded.buffer, 3, bytes.length),
  };
}

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

async function rejectsWith(promise, code, ...includes) {
  const e = await rejection(promise);
  assert.ok(e instanceof PrivliftError, `expected a PrivliftError, got ${e}`);
  assert.equal(e.code, code, `code of "${e.message}"`);
  for (const s of includes) assert.ok(e.message.includes(s), `"${e.message}" should mention ${s}`);
  return e;
}

/**
 * Runs `fn` with JSON.parse and TextDecoder.prototype.decode wrapped by counting proxies;
 * returns the length of every string JSON.parse was given and of every buffer decoded.
 */
async function spyOnParsing(fn) {
  const jsonParse = JSON.parse;
  const decode = TextDecoder.prototype.decode;
  const parsed = [];
  const decoded = [];
  JSON.parse = new Proxy(jsonParse, {
    apply(target, self, args) {
      parsed.push(typeof args[0] === 'string' ? args[0].length : String(args[0]).length);
      return Reflect.apply(target, self, args);
    },
  });
  TextDecoder.prototype.decode = new Proxy(decode, {
    apply(target, self, args) {
      decoded.push(args[0] ? args[0].byteLength : 0);
      return Reflect.apply(target, self, args);
    },
  });
  try {
    return { result: await fn(), parsed, decoded };
  } finally {
    JSON.parse = jsonParse;
    TextDecoder.prototype.decode = decode;
  }
}

/** Serves `routes` ({path: JSON text}) on 127.0.0.1; resolves to the base URL and a close(). */
async function serve(routes) {
  const server = createServer((req, res) => {
    const body = routes[req.url];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('one parse, in wasm', () => {
  const k = 512; // 262 144 probabilities, about 5 MB of JSON
  const big = krrDocument(k);
  const text = JSON.stringify(big);
  const bytes = utf8(text);
  // One σ per lattice point (201), long decimals: a few KB.
  const salary = JSON.stringify({
    ...gaussianDocument({ sigma: Array.from({ length: 201 }, (_, j) => 228 + j / 7) }),
    claims: { lip: { eps: 1, delta: 1e-3 } },
  });
  let server;

  before(async () => {
    server = await serve({
      '/big.json': text,
      '/salary.json': salary,
    });
    await parseMechanism(krrDocument(2)); // load the modules outside the spied calls
    await parseContinuousMechanism(gaussianDocument());
  });
  after(() => server.close());

  const noDocumentParse = ({ parsed, decoded }, size) => {
    assert.ok(size > 2048, `${size} bytes`);
    // Not the document, nor anything near its size: only small strings, if any.
    assert.deepEqual(parsed.filter((n) => n >= 1024), [], `JSON.parse was called on ${parsed.join(', ')} characters`);
    assert.deepEqual(decoded.filter((n) => n >= 1024), [], `TextDecoder decoded ${decoded.join(', ')} bytes`);
  };

  test(`a ${Math.round(bytes.length / 1e6)} MB document as bytes is parsed without JSON.parse or a decode in JS`, async () => {
    const spied = await spyOnParsing(() => parseMechanism(bytes));
    noDocumentParse(spied, bytes.length);
    const doc = spied.result;
    assert.equal(doc.kind, 'matrix');
    assert.equal(doc.labels.length, k);
    assert.equal(doc.labels[k - 1], `v${k - 1}`);
    const mech = doc.verify({ maxLdpX: 1.01 });
    assert.ok(mech.outputLabels.includes(mech.perturb('v7')));
    mech.free();
    doc.free();
  });

  test('as a string or an object, the document is not parsed in JS either', async () => {
    for (const input of [text, big]) {
      const spied = await spyOnParsing(() => parseMechanism(input));
      noDocumentParse(spied, bytes.length);
      assert.equal(spied.result.labels.length, k);
      spied.result.free();
    }
  });

  test('fetchMechanism and fetchContinuousMechanism pass the downloaded bytes straight to wasm', async () => {
    const spied = await spyOnParsing(() => fetchMechanism(`${server.base}/big.json`, { maxLdpX: 2 }));
    noDocumentParse(spied, bytes.length);
    assert.equal(spied.result.labels.length, k);
    spied.result.free();
    const cont = await spyOnParsing(() => fetchContinuousMechanism(`${server.base}/salary.json`, {
      // One σ table per point costs 1.2e9 units to verify: past the default budget.
      lip: { eps: 1, delta: 1e-3 }, maxVerifyWork: 1e10,
    }));
    noDocumentParse(cont, salary.length);
    assert.equal(cont.result.kind, 'gaussian');
    cont.result.free();
  });

  test('a wrong-family document is refused by the core without JSON.parse in JS', async () => {
    const spied = await spyOnParsing(() => rejection(parseContinuousMechanism(bytes)));
    noDocumentParse(spied, bytes.length);
    assert.equal(spied.result.code, 'unsupported_mechanism');
    assert.ok(spied.result.message.includes("use parseMechanism from 'privlift'"), spied.result.message);
  });
});

describe('a document of the other family keeps its typed error', () => {
  test('continuous documents given to parseMechanism, in every input form', async () => {
    assert.deepEqual([...CONTINUOUS_KINDS].sort(), Object.keys(continuousDocuments).sort());
    for (const [kind, doc] of Object.entries(continuousDocuments)) {
      for (const [form, input] of Object.entries(forms(doc))) {
        const e = await rejectsWith(parseMechanism(input), 'unsupported_mechanism',
          `mechanism kind '${kind}' is a continuous document`,
          "use parseContinuousMechanism / fetchContinuousMechanism from 'privlift/continuous'");
        assert.ok(e.cause && e.cause.name === 'PrivliftError', `${form}: the wasm error is the cause`);
      }
      // The right entry point takes every form.
      for (const [form, input] of Object.entries(forms(doc))) {
        const ok = await parseContinuousMechanism(input);
        assert.equal(ok.kind, kind, form);
        ok.free();
      }
    }
  });

  test('discrete documents given to parseContinuousMechanism, in every input form', async () => {
    const doc = krrDocument(3);
    for (const [form, input] of Object.entries(forms(doc))) {
      await rejectsWith(parseContinuousMechanism(input), 'unsupported_mechanism',
        "mechanism kind 'matrix' is a discrete document: use parseMechanism from 'privlift'");
      const ok = await parseMechanism(input);
      assert.deepEqual(ok.labels, ['v0', 'v1', 'v2'], form);
      ok.free();
    }
    const unary = { ...doc, mechanism: { kind: 'unary', q01: 0.25, q10: 0.25 } };
    await rejectsWith(parseContinuousMechanism(utf8(JSON.stringify(unary))), 'unsupported_mechanism', "'unary' is a discrete document");
  });

  test('the family is told by mechanism.kind, whatever else fails', async () => {
    // A discrete-shaped document (labels) with a continuous kind: the typed parse succeeds,
    // validation refuses the kind, and the message still names the continuous API.
    const hybrid = { ...krrDocument(3), mechanism: { kind: 'laplace', b: 1 } };
    await rejectsWith(parseMechanism(hybrid), 'unsupported_mechanism', "'privlift/continuous'");
    // A continuous document with a bad header is still a continuous document.
    await rejectsWith(parseMechanism({ ...gaussianDocument(), format: 'other' }), 'unsupported_mechanism', 'parseContinuousMechanism');
    await rejectsWith(parseContinuousMechanism({ ...krrDocument(3), version: 9 }), 'unsupported_mechanism', 'parseMechanism');
    // Duplicate keys: the last `mechanism` counts, as JSON.parse would read it.
    const twice = JSON.stringify(gaussianDocument()).replace('"mechanism":', '"mechanism":{"kind":"matrix"},"mechanism":');
    await rejectsWith(parseMechanism(twice), 'unsupported_mechanism', "'gaussian'");
  });

  test('open-domain or discrete, wherever the document puts its members', async () => {
    // The discrete reader reads every document first; one it refuses as an open-domain
    // document (`unsupported_mechanism`, from the core's peek of its kind) goes to the
    // open-domain module.
    const fruit = JSON.parse(await readFile(new URL('../../examples/fruit-olh.json', import.meta.url), 'utf8'));
    const padding = 'x'.repeat(1 << 17);
    const openLate = { description: padding, ...fruit };
    const discreteLate = { description: padding, ...krrDocument(3) };
    const discreteEarly = { labels: ['v0', 'v1', 'v2'], description: padding, ...krrDocument(3) };
    for (const [doc, kind] of [[openLate, 'olh'], [discreteLate, 'matrix'], [discreteEarly, 'matrix']]) {
      const parsed = await parseMechanism(utf8(JSON.stringify(doc)));
      assert.equal(parsed.kind, kind);
      parsed.free();
    }
    // A `labels` member makes any document discrete, early or late: an open kind with
    // labels is the discrete reader's to refuse, the same way.
    const refusals = [];
    for (const doc of [{ labels: ['a'], ...fruit, description: padding }, { description: padding, ...fruit, labels: ['a'] }]) {
      const e = await parseMechanism(utf8(JSON.stringify(doc))).then(() => null, (err) => err);
      assert.ok(e instanceof PrivliftError, String(e));
      refusals.push([e.code, e.message]);
    }
    assert.deepEqual(refusals[0], refusals[1]);
    // Given to the continuous entry point, an open-domain document names parseMechanism.
    await rejectsWith(parseContinuousMechanism(utf8(JSON.stringify(fruit))), 'unsupported_mechanism',
      "mechanism kind 'olh' is an open document: use parseMechanism from 'privlift'");
  });

  test('without a string mechanism.kind, the core error stands', async () => {
    const noKind = { ...gaussianDocument(), mechanism: { sigma: 228 } };
    await rejectsWith(parseMechanism(noKind), 'json');
    await rejectsWith(parseContinuousMechanism(noKind), 'json', 'mechanism.kind');
    await rejectsWith(parseMechanism({ ...gaussianDocument(), mechanism: { kind: 7, sigma: 228 } }), 'json');
    await rejectsWith(parseContinuousMechanism({ ...krrDocument(3), mechanism: { kind: '' } }), 'json');
    await rejectsWith(parseContinuousMechanism({ ...krrDocument(3), mechanism: ['matrix'] }), 'json');
    await rejectsWith(parseMechanism('{"mechanism": {"kind": "gaussian"}'), 'json'); // not JSON: no guess
    await rejectsWith(parseMechanism('[{"mechanism": {"kind": "gaussian"}}]'), 'json');
    await rejectsWith(parseMechanism(utf8('')), 'json');
  });

  test('fetch: the same typed errors from downloaded bytes', async () => {
    const { base, close } = await serve({
      '/salary.json': JSON.stringify(gaussianDocument()),
      '/krr.json': JSON.stringify(krrDocument(3)),
    });
    try {
      await rejectsWith(fetchMechanism(`${base}/salary.json`), 'unsupported_mechanism', "'privlift/continuous'");
      await rejectsWith(fetchContinuousMechanism(`${base}/krr.json`), 'unsupported_mechanism', "from 'privlift'");
    } finally {
      await close();
    }
  });
});

describe('UTF-8 bytes', () => {
  /** `doc` as UTF-8 bytes with the bytes of `marker` (a string in it) replaced by `bad`. */
  function corrupt(doc, marker, bad) {
    const text = JSON.stringify(doc);
    const at = utf8(text.slice(0, text.indexOf(marker))).length;
    const bytes = utf8(text);
    return Uint8Array.from([...bytes.subarray(0, at), ...bad, ...bytes.subarray(at + utf8(marker).length)]);
  }

  const invalid = {
    'a lone continuation byte': [0x80],
    'a byte that is never UTF-8': [0xff],
    'an overlong encoding of /': [0xc0, 0xaf],
    'an encoded surrogate': [0xed, 0xa0, 0x80],
    'a truncated sequence': [0xe6, 0x97],
    'a code point above U+10FFFF': [0xf4, 0x90, 0x80, 0x80],
  };

  test('bytes that are not UTF-8 are `json`, in labels, ids, keys and between values', async () => {
    for (const [what, bad] of Object.entries(invalid)) {
      const label = corrupt(krrDocument(3, { labels: ['a', 'MARK', 'c'] }), 'MARK', bad);
      await rejectsWith(parseMechanism(label), 'json', 'not valid UTF-8');
      await rejectsWith(parseContinuousMechanism(label), 'json', 'not valid UTF-8');
      const id = corrupt(gaussianDocument({ id: 'MARK' }), 'MARK', bad);
      await rejectsWith(parseContinuousMechanism(id), 'json', 'not valid UTF-8');
      // Not UTF-8 comes first: not the wrong-family error of a continuous document.
      await rejectsWith(parseMechanism(id), 'json', 'not valid UTF-8');
      const key = corrupt(krrDocument(3), '"claims"', [0x22, ...bad, 0x22]);
      await rejectsWith(parseMechanism(key), 'json', 'not valid UTF-8');
      const between = corrupt(krrDocument(3), ',"prior"', [0x2c, ...bad, 0x2c, ...utf8('"prior"')]);
      await rejectsWith(parseMechanism(between), 'json', 'not valid UTF-8');
      const end = Uint8Array.from([...utf8(JSON.stringify(krrDocument(3))), ...bad]);
      await rejectsWith(parseMechanism(end), 'json', 'not valid UTF-8');
      await rejectsWith(fetchBadBytes(end), 'json', 'not valid UTF-8');
    }
  });

  /** fetchMechanism of `bytes` served as they are. */
  async function fetchBadBytes(bytes) {
    const server = createServer((req, res) => res.writeHead(200).end(Buffer.from(bytes)));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await fetchMechanism(`http://127.0.0.1:${server.address().port}/doc.json`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  test('valid multi-byte UTF-8 is read as written, from bytes and from strings', async () => {
    const labels = ['ä', '日本語', '😀 emoji', 'a\u0000b', '\u2028', 'e\u0301'];
    const doc = krrDocument(labels.length, { labels, id: 'ünïcode ✓' });
    for (const [form, input] of Object.entries(forms(doc))) {
      const parsed = await parseMechanism(input);
      assert.deepEqual(parsed.labels, labels, form);
      assert.equal(parsed.id, 'ünïcode ✓', form);
      parsed.free();
    }
    // Escapes and raw characters are the same text.
    const escaped = JSON.stringify(doc).replace('日本語', '\\u65e5\\u672c\\u8a9e').replace('😀', '\\ud83d\\ude00');
    const viaEscapes = await parseMechanism(utf8(escaped));
    assert.deepEqual(viaEscapes.labels, labels);
    viaEscapes.free();
  });

  test('one leading byte-order mark is skipped in bytes and in a string, as the CLI skips it', async () => {
    const text = JSON.stringify(krrDocument(3));
    const plain = await parseMechanism(text);
    for (const form of [Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8(text)]), `\ufeff${text}`]) {
      const doc = await parseMechanism(form);
      assert.equal(doc.labels.length, 3);
      // Reports name the document without its BOM, however it came (and as the collector hashes it).
      assert.equal(doc.sha256, plain.sha256);
      doc.free();
    }
    plain.free();
    const gaussian = JSON.stringify(gaussianDocument());
    for (const form of [Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8(gaussian)]), `\ufeff${gaussian}`]) {
      const cont = await parseContinuousMechanism(form);
      assert.equal(cont.kind, 'gaussian');
      cont.free();
    }
    // A second one is not whitespace: the document is not JSON, in every entry point.
    await rejectsWith(parseMechanism(`\ufeff\ufeff${text}`), 'json');
    await rejectsWith(parseMechanism(Uint8Array.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...utf8(text)])), 'json');
  });

  test('other argument types are still refused before any parse', async () => {
    for (const bad of [42, undefined, null, true, 1n]) {
      await rejectsWith(parseMechanism(bad), 'invalid_argument', 'document');
      await rejectsWith(parseContinuousMechanism(bad), 'invalid_argument', 'document');
    }
    const cyclic = {};
    cyclic.self = cyclic;
    await rejectsWith(parseMechanism(cyclic), 'invalid_argument', 'serialised');
  });
});

describe("the document's hash", () => {
  /**
   * Runs `fn` logging each SHA-256 digest (its length) and each wasm parse, in order;
   * `result` is what it resolved to or the error it rejected with.
   */
  async function spyOnHashing(fn) {
    const { subtle } = globalThis.crypto;
    const { digest } = subtle;
    const { parseBytes } = rawDiscrete.Document;
    const events = [];
    subtle.digest = function (algorithm, data) {
      events.push(`digest ${data.byteLength}`);
      return digest.call(this, algorithm, data);
    };
    rawDiscrete.Document.parseBytes = function (...args) {
      events.push('parse');
      return parseBytes.apply(this, args);
    };
    try {
      return { result: await fn().catch((e) => e), events };
    } finally {
      delete subtle.digest;
      rawDiscrete.Document.parseBytes = parseBytes;
    }
  }
  const sha256 = (text) => createHash('sha256').update(text).digest('hex');
  const padded = (doc) => `${JSON.stringify(doc)}${' '.repeat(HASHED_FIRST)}`;
  const unnormalised = () => ({ ...krrDocument(3), prior: [0.5, 0.5, 0.5] });

  test(`up to ${HASHED_FIRST} bytes it is hashed before the parse, refused or not`, async () => {
    await parseMechanism(krrDocument(2)); // load the modules outside the spied calls
    const text = JSON.stringify(krrDocument(3));
    const ok = await spyOnHashing(() => parseMechanism(utf8(text)));
    assert.deepEqual(ok.events, [`digest ${utf8(text).length}`, 'parse']);
    assert.equal(ok.result.sha256, sha256(text));
    ok.result.free();
    // A byte-order mark is not hashed: the hash names the document as the collector does.
    const bom = await spyOnHashing(() => parseMechanism(`\ufeff${text}`));
    assert.deepEqual(bom.events, [`digest ${utf8(text).length}`, 'parse']);
    assert.equal(bom.result.sha256, sha256(text));
    bom.result.free();
    const refused = await spyOnHashing(() => parseMechanism(JSON.stringify(unnormalised())));
    assert.equal(refused.result.code, 'not_normalized', refused.result.message);
    assert.deepEqual(refused.events.map((e) => e.split(' ')[0]), ['digest', 'parse']);
  });

  test(`beyond ${HASHED_FIRST} bytes it is hashed once parsed, and a refused one never`, async () => {
    const text = padded(krrDocument(3));
    const ok = await spyOnHashing(() => parseMechanism(utf8(text)));
    assert.deepEqual(ok.events, ['parse', `digest ${utf8(text).length}`]);
    assert.equal(ok.result.sha256, sha256(text));
    ok.result.free();
    const refused = await spyOnHashing(() => parseMechanism(padded(unnormalised())));
    assert.equal(refused.result.code, 'not_normalized', refused.result.message);
    assert.deepEqual(refused.events, ['parse']);
  });
});
