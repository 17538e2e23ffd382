// The JS guide's snippets, run in Node against the built package (`node --test tests/js/`
// after scripts/build-wasm.sh). Every ```js / ```javascript block of js/README.md (the npm
// package's README; the repository's README.md has none and points to it) is run as its
// own ES module, with its `privlift…` imports resolved to this package (as a web app's
// bundler resolves them) and its relative URLs served by a local server standing in for
// the page's origin; then the block's CHECKS entry asserts what the snippet promises.
// A browser-only block may be listed in SKIPPED with the reason instead; a block in
// neither list, or an entry that matches no block, fails the test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { README, jsBlocks } from './readme-blocks.mjs';

const ROOT = new URL('../../', import.meta.url);

/** Blocks that cannot run in Node, by key (see blockKey), each with the reason. */
const SKIPPED = {};

/**
 * What each block promises, by key: `check(scope, site)` gets the block's top-level
 * bindings and what the stand-in origin saw.
 */
const CHECKS = {
  'Perturb, report, show the receipt #1': ({ mechanism, y, report, receipt }, site) => {
    assert.deepEqual(site.requests, ['GET /mechanisms/age-krr.json', 'POST /v1/reports']);
    assert.ok(mechanism.outputLabels.includes(y), `y = ${y}: an output label`);
    assert.deepEqual(site.collected, [{ reports: [{ ...report }] }], 'the report envelope is what is sent');
    assert.equal(report.output, y, 'the perturbed label');
    assert.equal(report.sha256, site.sha256['age-krr.json'], 'the hash of the document served');
    assert.deepEqual(receipt.entries.map((e) => e.label), [...mechanism.labels]);
    assert.ok(receipt.entries.every((e) => e.lift >= receipt.minLiftBound && e.lift <= receipt.maxLiftBound));
    assert.equal(site.logged.length, receipt.entries.length + 1, site.logged.join('\n'));
    assert.match(site.logged.at(-1), /^every lift stays in \[[0-9.e-]+, [0-9.e-]+\]$/);
  },
  'In Node #1': ({ mechanism, same, y }, site) => {
    assert.deepEqual(site.requests, [], 'read from disk, no HTTP');
    assert.equal(mechanism.id, 'age-krr-eps1');
    assert.equal(same.sha256, mechanism.sha256, 'the same bytes both ways');
    assert.ok(mechanism.outputLabels.includes(y), `y = ${y}: an output label`);
  },
  'Documents of any size: `verifyAsync` #1': ({ retired, output, receipt }, site) => {
    assert.deepEqual(site.requests, ['GET /mechanisms/age-retired-orr.json']);
    assert.equal(receipt.mechanismId, 'age-retired-orr');
    assert.ok(Number.isInteger(output) && output >= 0 && output < 6, `output ${output}`);
    assert.deepEqual(receipt.entries.map((e) => e.label), ['18-24', '25-34', '35-44', '45-54', '55-64', '65+']);
    assert.throws(() => retired.labels, { code: 'invalid_state' }, 'free() released it');
  },
  'A privacy ledger #1': ({ mechanism, output, bound, memoized }, site) => {
    assert.deepEqual(site.requests, ['GET /mechanisms/age-krr.json']);
    assert.ok(Number.isInteger(output) && output < mechanism.outputLabels.length);
    assert.equal(memoized, false);
    assert.equal(bound.releases, 1);
    assert.ok(bound.ldp > 0 && bound.ldp <= 1 * (1 + 1e-9) && bound.ldp <= 4, JSON.stringify(bound));
    assert.ok(bound.lip > 0 && bound.lip <= bound.ldp, JSON.stringify(bound));
  },
  'Free text (a word, a URL, an emoji): open-domain kinds #1': ({ fruit, sent, envelope, receipt, batch, seeds, first }, site) => {
    assert.deepEqual(site.requests, []);
    assert.equal(batch.length, 3);
    assert.ok(seeds instanceof Uint32Array && seeds.length === 3 && batch.y.every((y) => y < 4));
    assert.deepEqual(first, { seed: seeds[0], y: batch.y[0] });
    assert.equal(batch.canonical(0), `${seeds[0]}:${batch.y[0]}`);
    assert.equal(fruit.kind, 'olh');
    assert.ok(Number.isInteger(sent.seed) && sent.y >= 0 && sent.y < 4, JSON.stringify(sent));
    assert.deepEqual(envelope.output, sent);
    assert.equal(envelope.mechanism, 'fruit-olh');
    assert.deepEqual(receipt.listed.map((e) => e.value), ['apple', 'banana']);
    assert.equal(receipt.otherMass, 0.5);
    const { epsL, epsU } = fruit.audit();
    assert.ok(receipt.unlistedMaxLift <= Math.exp(epsU) * (1 + 1e-12) && receipt.unlistedMinLift >= Math.exp(-epsL) * (1 - 1e-12));
  },
  'Curator side in the browser: `privlift/design` #1': ({ json, pX, stdError }, site) => {
    const doc = JSON.parse(json);
    assert.equal(doc.format, 'privlift-mechanism');
    assert.deepEqual(doc.labels, ['a', 'b', 'c']);
    assert.ok(doc.claims.lip <= 1 * (1 + 1e-9), JSON.stringify(doc.claims));
    // The example's design is one `estimate` can invert.
    assert.equal(pX.length, 3);
    assert.ok(Math.abs(pX.reduce((a, b) => a + b, 0) - 1) < 1e-9, JSON.stringify(pX));
    assert.ok(stdError.every((e) => e > 0 && Number.isFinite(e)), JSON.stringify(stdError));
    assert.deepEqual(site.requests, []);
  },
  'A number (salary, reading): `privlift/continuous` #1': async ({ salary, y, r }, site) => {
    assert.deepEqual(site.requests, ['GET /mechanisms/salary-gaussian-lip.json']);
    const { lo, step } = salary.domain;
    const j = (y - lo) / step; // noise may take y beyond the domain, never off the lattice
    assert.ok(Math.abs(j - Math.round(j)) < 1e-9, `y = ${y} is a lattice value`);
    assert.equal(r.output, y);
    assert.equal(r.userPoint, 52000, 'the nearest lattice point to 52 300');
    assert.ok(r.userRatio > 0 && r.userRatio >= r.minRatio && r.userRatio <= r.maxRatio);
    assert.equal(r.xs.length, r.ratios.length);
    const v = await salary.verification();
    assert.ok(v.policyHolds && v.policy.length > 0, 'verified against the (1 nat, 1e-5)-LIP policy');
  },
};

/**
 * The block as a module: its `privlift…` imports resolved to this package (package.json
 * "exports", through the package's self-reference), its top-level bindings exported.
 */
function asModule(code) {
  const resolved = code.replace(/(\bfrom\s*|\bimport\s*)(['"])(privlift(?:\/[\w-]+)?)\2/g,
    (_, kw, q, spec) => `${kw}${q}${import.meta.resolve(spec)}${q}`);
  const names = new Set();
  for (const m of code.matchAll(/^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=/gm)) names.add(m[1]);
  for (const m of code.matchAll(/^(?:const|let|var)\s*\{([^}]*)\}\s*=/gm)) {
    for (const part of m[1].split(',')) {
      const name = part.split(':').at(-1).split('=')[0].trim();
      if (name) names.add(name);
    }
  }
  return `${resolved}\nexport { ${[...names].join(', ')} };\n`;
}

// ---------------------------------------------------------------------------------------
// The page's origin: the repository's sample documents (examples/ and www/mechanisms/) under
// /mechanisms/, and a collector's POST /v1/reports.

let server;
let base;
const site = { requests: [], collected: [], logged: [], sha256: {} };

let workdir;

before(async () => {
  // The Node example reads age-krr.json from the current directory, as a user's script would.
  workdir = await mkdtemp(join(tmpdir(), 'privlift-readme-'));
  await copyFile(new URL('www/mechanisms/age-krr.json', ROOT), join(workdir, 'age-krr.json'));
  process.chdir(workdir);
  server = createServer(async (req, res) => {
    site.requests.push(`${req.method} ${req.url}`);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (req.method === 'POST' && req.url === '/v1/reports') {
      const batch = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      site.collected.push(batch);
      res.writeHead(202, { 'content-type': 'application/json' })
        .end(JSON.stringify({ accepted: batch.reports.length, duplicates: 0 }));
      return;
    }
    const file = req.method === 'GET' && req.url.match(/^\/mechanisms\/([\w-]+\.json)$/)?.[1];
    try {
      if (!file) throw new Error('not served');
      // The repository's sample documents: examples/, then the demo's hand-written ones.
      const body = await readFile(new URL(`examples/${file}`, ROOT))
        .catch(() => readFile(new URL(`www/mechanisms/${file}`, ROOT)));
      site.sha256[file] = createHash('sha256').update(body).digest('hex');
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
});

after(async () => {
  server?.close();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** Runs `module` with fetch resolving relative URLs against the stand-in origin and console.log recorded. */
async function runInPage(module) {
  const realFetch = globalThis.fetch;
  const realLog = console.log;
  site.requests = [];
  site.collected = [];
  site.logged = [];
  globalThis.fetch = (url, init) => realFetch(typeof url === 'string' ? new URL(url, base) : url, init);
  console.log = (...args) => { site.logged.push(args.join(' ')); };
  try {
    return await import(`data:text/javascript,${encodeURIComponent(module)}`);
  } finally {
    globalThis.fetch = realFetch;
    console.log = realLog;
  }
}

const readme = await readFile(README, 'utf8');
const blocks = jsBlocks(readme);

test('the repository README has no JS example of its own: the JS guide is js/README.md', async () => {
  assert.deepEqual(jsBlocks(await readFile(new URL('README.md', ROOT), 'utf8')), []);
});

test('every README JS block is run or skipped with a reason, and every entry matches a block', () => {
  const keys = blocks.map((b) => b.key);
  assert.ok(keys.length > 0, 'no ```js block found in js/README.md');
  for (const key of keys) {
    assert.ok(key in CHECKS || key in SKIPPED,
      `README block "${key}" is neither checked nor skipped: add what it promises to CHECKS in tests/js/readme.test.mjs (or, if it only runs in a browser, a reason to SKIPPED)`);
    assert.ok(!(key in CHECKS && key in SKIPPED), `README block "${key}" is both checked and skipped`);
  }
  for (const key of [...Object.keys(CHECKS), ...Object.keys(SKIPPED)]) {
    assert.ok(keys.includes(key), `"${key}" in tests/js/readme.test.mjs matches no README block (renamed heading?)`);
  }
  for (const [key, reason] of Object.entries(SKIPPED)) assert.ok(typeof reason === 'string' && reason.length > 10, key);
});

test('the block reader finds js blocks under their headings and nothing else', () => {
  const md = ['# A', '```js', 'one', '```', '```sh', 'not js', '```', '## B', '````javascript', '```', 'two', '````',
    '```json', '{}', '```', '```js', 'three', '```'].join('\n');
  assert.deepEqual(jsBlocks(md), [
    { key: 'A #1', code: 'one' }, { key: 'B #1', code: '```\ntwo' }, { key: 'B #2', code: 'three' },
  ]);
  assert.match(asModule("import { a } from 'privlift/ledger';\nconst { b, c: d } = a;\nlet e = 1;"),
    /from 'file:\/\/[^']*\/js\/ledger\.js';[\s\S]*export \{ e, b, d \};/);
});

for (const block of blocks) {
  if (block.key in SKIPPED) {
    test(`README: ${block.key}`, { skip: SKIPPED[block.key] }, () => {});
    continue;
  }
  test(`README: ${block.key}`, async () => {
    const scope = await runInPage(asModule(block.code));
    const check = CHECKS[block.key];
    assert.ok(check, `no CHECKS entry for "${block.key}" (it ran without error)`);
    await check(scope, site);
  });
}
