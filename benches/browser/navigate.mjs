// Headless-Chromium benchmark of the way a page gets a verified mechanism (see navigate.html).
//
//   node benches/browser/navigate.mjs [BASE_URL] [--runs 5] [--reps 7] [--n 20] [--ks 21,256] [--no-perturb] [--out FILE]
//
// In one run:
//  1. cold loads: each document is loaded --runs times, each time in a new browser context
//     (no HTTP cache, a new renderer process, so the wasm is fetched and compiled again),
//     timing fetchMechanism(doc, {}) from navigation start to the verified mechanism (for a
//     document above the synchronous budget, which it refuses as `needs_async`, then
//     verifyAsync of its bytes, as the README tells an app to: marked "(verifyAsync)", its
//     `parse` the read up to the refusal);
//  2. verify alone on a warm page: doc.verify({}) (verifyAsync where it is refused: the
//     Worker's parse, verify and round trip), median of --reps after one warm-up
//     (and after one verify of every document, so that the first one is not the wasm's tier-up);
//  3. memory kept by --n verified k = 4096 `krr` mechanisms;
//  4. perturbMany against naive JS k-RR: benches/browser/bench.mjs --ks 21,256, for the
//     channel as a `krr` document (what `privlift design krr` publishes) and as a dense `matrix`.
// The documents are generated into target/bench-docs/ (served as /target/bench-docs/).
// BASE_URL is a server whose root is the repository root; without it this script starts
// `target/release/privlift serve --dir . --port 0` (python3 http.server if not built).
// Writes the results as JSON to --out (default target/bench-results/navigate.json) and
// prints markdown tables.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, execSync } from 'node:child_process';
import { gzipSync, constants as zc } from 'node:zlib';
import { loadavg, cpus } from 'node:os';
import { parseMechanism } from '../../js/privlift.js';
import { serveFolder } from '../../scripts/net.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const RUNS = Number(opt('runs', 5));
const REPS = Number(opt('reps', 7));
const KEEP = Number(opt('n', 20));
const KS = opt('ks', '21,256');
const outFile = resolve(repo, opt('out', 'target/bench-results/navigate.json'));
const EPS = 1;
const sh = (cmd) => { try { return execSync(cmd, { encoding: 'utf8' }).trim(); } catch { return null; } };
const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
const log = (s) => console.error(`[navigate] ${s}`);

// ---------------------------------------------------------------------------------------
// Documents (uniform prior unless a secret is declared; labels v0, v1, …)

function krrMatrix(k, eps) {
  const e = Math.exp(eps), d = e / (e + k - 1), o = 1 / (e + k - 1);
  return Array.from({ length: k }, (_, x) => Array.from({ length: k }, (_, y) => (x === y ? d : o)));
}
/** A random joint P_SX (entries (u32 + 1) / 2^32, normalised; xorshift32) and its column sums. */
function randomJoint(ns, k, seed) {
  let s = seed >>> 0;
  const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s; };
  const p = Array.from({ length: ns }, () => Array.from({ length: k }, () => (next() + 1) / 4294967296));
  const total = p.flat().reduce((a, v) => a + v, 0);
  for (const row of p) for (let x = 0; x < k; x++) row[x] /= total;
  const prior = Array(k).fill(0);
  for (const row of p) for (let x = 0; x < k; x++) prior[x] += row[x]; // rows in order, as the validator sums
  return { labels: Array.from({ length: ns }, (_, i) => `s${i}`), p_sx: p, prior };
}
function doc(id, k, mechanism, claims, secret) {
  return {
    format: 'privlift-mechanism', version: 1, id,
    labels: Array.from({ length: k }, (_, i) => `v${i}`),
    prior: secret ? secret.prior : Array(k).fill(1 / k),
    ...(secret ? { secret: { labels: secret.labels, p_sx: secret.p_sx } } : {}),
    mechanism, claims,
  };
}
const krrKind = { kind: 'krr', epsilon: EPS };
const rrLipLdpX = Math.log(1 + (0.6 * 4096) / 0.4); // max/min of P(y|x) = (κ + (1−κ)/k) / ((1−κ)/k)
const s16 = randomJoint(16, 4096, 9);
const docs = {
  // cold loads (claims ldp_x = ε = 1). Dense k = 4096 would be ~520 MB of JSON: not generated.
  'matrix-21': doc('matrix-21', 21, { kind: 'matrix', p_y_given_x: krrMatrix(21, EPS) }, { ldp_x: EPS }),
  'matrix-256': doc('matrix-256', 256, { kind: 'matrix', p_y_given_x: krrMatrix(256, EPS) }, { ldp_x: EPS }),
  'matrix-1024': doc('matrix-1024', 1024, { kind: 'matrix', p_y_given_x: krrMatrix(1024, EPS) }, { ldp_x: EPS }),
  'krr-21': doc('krr-21', 21, krrKind, { ldp_x: EPS }),
  'krr-1024': doc('krr-1024', 1024, krrKind, { ldp_x: EPS }),
  'krr-4096': doc('krr-4096', 4096, krrKind, { ldp_x: EPS }),
  // verify alone (also krr-4096 and matrix-1024 above)
  'rr_lip-4096': doc('rr_lip-4096', 4096, { kind: 'rr_lip', keep: 0.6, mixing: Array(4096).fill(1 / 4096) },
    { ldp_x: rrLipLdpX * (1 + 1e-6) }),
  'merge-4096-64-krr': doc('merge-4096-64-krr', 4096,
    { kind: 'merge', blocks: Array.from({ length: 4096 }, (_, x) => x % 64), inner: krrKind }, { ldp_x: EPS }),
  // A merge without inner is deterministic: with S = X every claim (ldp_x, lip, alip, ℓ1, …)
  // is infinite, so it only verifies w.r.t. a secret. Its `lip` claim is set from the audit below.
  'merge-4096-2048-s16': doc('merge-4096-2048-s16', 4096,
    { kind: 'merge', blocks: Array.from({ length: 4096 }, (_, x) => x >> 1) }, { lip: 1 }, s16),
  'matrix-1024-s16': doc('matrix-1024-s16', 1024, { kind: 'matrix', p_y_given_x: krrMatrix(1024, EPS) },
    { ldp_x: EPS }, randomJoint(16, 1024, 9)),
};
const NAV = ['matrix-21', 'matrix-256', 'matrix-1024', 'matrix-1024-s16', 'krr-21', 'krr-1024', 'krr-4096'];
const VERIFY = ['krr-4096', 'rr_lip-4096', 'merge-4096-64-krr', 'merge-4096-2048-s16', 'matrix-1024-s16', 'matrix-1024'];
{
  const d = await parseMechanism(docs['merge-4096-2048-s16']); // Node, same wasm module
  docs['merge-4096-2048-s16'].claims = { lip: d.audit().lip * (1 + 1e-6) };
  d.free();
}

const docDir = join(repo, 'target', 'bench-docs');
mkdirSync(docDir, { recursive: true });
const sizes = {};
for (const [name, d] of Object.entries(docs)) {
  const text = Buffer.from(JSON.stringify(d));
  writeFileSync(join(docDir, `${name}.json`), text);
  sizes[name] = { raw: text.length, gzip9: gzipSync(text, { level: zc.Z_BEST_COMPRESSION }).length };
}
const docUrl = (name) => `/target/bench-docs/${name}.json`;
log(`documents written to ${docDir}`);

// ---------------------------------------------------------------------------------------
// Server

let base = argv.find((a) => /^https?:\/\//.test(a))?.replace(/\/$/, '');
let server = null;
let serverName = 'given as BASE_URL';
if (!base) {
  const bin = ['target/release/privlift', 'target/debug/privlift'].map((b) => join(repo, b)).find(existsSync);
  if (bin) {
    server = spawn(bin, ['serve', '--dir', repo, '--port', '0'], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
    serverName = `${bin.slice(repo.length + 1)} serve`;
    base = await new Promise((res, rej) => {
      let text = '';
      server.stdout.on('data', (c) => { text += c; const m = /http:\/\/127\.0\.0\.1:\d+/.exec(text); if (m) res(m[0]); });
      server.once('exit', () => rej(new Error(`server exited: ${text}`)));
    });
    for (let i = 0; i < 50; i++) {
      try { if ((await fetch(base + '/package.json')).ok) break; } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
  } else {
    const folder = await serveFolder(repo);
    server = { kill: folder.stop };
    serverName = 'python3 http.server';
    base = folder.base;
  }
}
// Warm the server: `privlift serve` compresses a file once per coding and keeps it, so the
// first browser request must not pay brotli on a 22 MB document (Chromium asks for br).
let serverEncoding = null;
for (const p of ['/benches/browser/navigate.html', '/js/privlift.js', '/js/common.js', '/js/reports.js', '/js/offthread.js', '/pkg/privlift.js',
  '/pkg/privlift_bg.wasm', ...Object.keys(docs).map(docUrl)]) {
  const r = await fetch(base + p, { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
  if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
  serverEncoding ??= r.headers.get('content-encoding');
  await r.arrayBuffer();
}
serverName += `, Content-Encoding ${serverEncoding ?? 'none'}`;

// ---------------------------------------------------------------------------------------
// Browser

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const machine = {
  cpu: sh("lscpu | grep 'Model name'")?.replace(/^Model name:\s*/, '') ?? cpus()[0]?.model,
  nproc: cpus().length,
  uptimeStart: sh('uptime'),
};
/**
 * Makes a context's pages cross-origin isolated (COOP/COEP added to every response): a
 * 5 µs performance.now() and performance.measureUserAgentSpecificMemory. Warm pages only.
 */
const isolate = (context) => context.route('**/*', async (route) => {
  const resp = await route.fetch();
  const headers = { ...resp.headers(), 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
  delete headers['content-encoding']; // route.fetch() decoded the body
  delete headers['content-length'];
  await route.fulfill({ response: resp, headers, body: await resp.body() });
});
/** Loads navigate.html?query in a new context of `browser` and returns its window.__nav. */
async function load(browser, query, timeout = 120_000, setup = async () => {}) {
  const context = await browser.newContext();
  try {
    await setup(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => { console.error('[pageerror]', e); process.exitCode = 1; });
    page.on('console', (m) => { if (m.type() === 'error') console.error('[console]', m.text()); });
    await page.goto(`${base}/benches/browser/navigate.html?${new URLSearchParams(query)}`);
    await page.waitForFunction(() => window.__nav !== undefined, null, { timeout, polling: 100 });
    const r = await page.evaluate(() => window.__nav);
    if (!r.ok) throw new Error(r.error);
    return r;
  } finally {
    await context.close();
  }
}

const results = { machine, server: serverName, base, runs: RUNS, eps: EPS, sizes, navigation: {}, verify: {}, memory: null, perturbMany: null };
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ARGS });
results.browser = browser.version();
try {
  // 1. Cold loads, interleaved: round r loads every document once, in an order rotated by r.
  const runs = Object.fromEntries(NAV.map((n) => [n, []]));
  await load(browser, { doc: docUrl('matrix-21') }); // discarded: the browser's own first-navigation costs
  for (let round = 0; round < RUNS; round++) {
    for (let i = 0; i < NAV.length; i++) {
      const name = NAV[(i + round) % NAV.length];
      await new Promise((r) => setTimeout(r, 300)); // let the previous context's teardown settle
      const load1 = loadavg()[0];
      const r = await load(browser, { doc: docUrl(name) });
      runs[name].push({ ...r, load1 });
      log(`round ${round + 1}/${RUNS} ${name}: verified at ${r.verified.toFixed(1)} ms`);
    }
  }
  // Loading the page, the modules and the wasm varies by ±30 ms from load to load and is the
  // same work for every document, so besides the difference of the medians two steadier
  // differences are kept: paired by round, and of the work after both the document's bytes
  // and the wasm are in (parse + verify; it leaves out a download that ends later).
  // A load whose document has no Resource Timing entry yet (it is queued after the body is
  // read, and the page may read it first) counts in every figure but the document's own.
  const m = (name, f) => median(runs[name].map(f).filter(Number.isFinite));
  const afterReady = (r) => r.verified - Math.max(r.doc?.responseEnd, r.wasmReady);
  const base21 = m('matrix-21', (r) => r.verified);
  for (const name of NAV) {
    results.navigation[name] = {
      kind: runs[name][0].kind, k: runs[name][0].inputs,
      verified: m(name, (r) => r.verified), vsMatrix21: m(name, (r) => r.verified) - base21,
      vsMatrix21Paired: median(runs[name].map((r, i) => r.verified - runs['matrix-21'][i].verified)),
      afterReady: m(name, afterReady), afterReadyVsMatrix21: m(name, afterReady) - m('matrix-21', afterReady),
      module: m(name, (r) => r.module), docTtfb: m(name, (r) => r.doc?.responseStart - r.doc?.requestStart),
      docFetched: m(name, (r) => r.doc?.responseEnd), wasmReady: m(name, (r) => r.wasmReady),
      wasmCompile: m(name, (r) => r.wasmReady - r.wasm.responseEnd), // compile + instantiate
      parse: m(name, (r) => r.parsed - Math.max(r.doc?.responseEnd, r.wasmReady)), // incl. reading the body out
      verify: m(name, (r) => r.verified - r.parsed), firstPerturb: m(name, (r) => r.firstPerturb),
      wire: runs[name].find((r) => r.doc)?.doc.encodedBodySize, async: runs[name][0].async,
      runs: runs[name],
    };
  }

  // 2. Verify alone on a warm page.
  const v = await load(browser, { mode: 'verify', docs: VERIFY.map(docUrl).join(','), reps: REPS }, 600_000, isolate);
  results.verifyCrossOriginIsolated = v.crossOriginIsolated;
  for (const name of VERIFY) results.verify[name] = v.docs[docUrl(name)];
} finally {
  await browser.close();
}

// 3. Memory, in a browser that can force GC and read the JS heap precisely; the page is
// cross-origin isolated so that measureUserAgentSpecificMemory exists (compare its growth
// with the two others: in Chromium 156 it follows the JS heap, not the wasm memory).
const memBrowser = await chromium.launch({
  executablePath: '/usr/bin/chromium', headless: true,
  args: [...ARGS, '--enable-precise-memory-info', '--js-flags=--expose-gc', '--enable-blink-features=ForceEagerMeasureMemory'],
});
try {
  results.memory = await load(memBrowser, { mode: 'memory', doc: docUrl('krr-4096'), n: KEEP }, 300_000, isolate);
  results.memory.doc = 'krr-4096';
} finally {
  await memBrowser.close();
}

// 4. perturbMany vs naive JS, by the existing page, for each document kind of the channel.
if (!argv.includes('--no-perturb')) {
  results.perturbMany = {};
  for (const kind of ['krr', 'matrix']) {
    const text = await new Promise((res, rej) => {
      const p = spawn(process.execPath, [join(repo, 'benches/browser/bench.mjs'), base, '--ks', KS, '--kind', kind], { stdio: ['ignore', 'pipe', 'inherit'] });
      let s = '';
      p.stdout.on('data', (c) => { s += c; });
      p.on('exit', (code) => (code === 0 ? res(s) : rej(new Error(`bench.mjs exited with ${code}`))));
    });
    const b = JSON.parse(text);
    for (const [k, r] of Object.entries(b.krr)) {
      results.perturbMany[`${kind} ${k}`] = {
        kind, k: Number(k), perturbMany: r.perturbMany.median, naiveJsKrr: r.naiveJsKrr.median, ratio: r.perturbMany.median / r.naiveJsKrr.median,
        runs: { perturbMany: r.perturbMany.runs, naiveJsKrr: r.naiveJsKrr.runs },
      };
    }
  }
}
if (server) server.kill();
machine.uptimeEnd = sh('uptime');

// ---------------------------------------------------------------------------------------
// Report

const f = (x, d = 1) => (x === null || x === undefined ? '—' : x.toFixed(d));
const sgn = (x) => (x >= 0 ? '+' : '') + f(x);
const nav = results.navigation;
const ver = results.verify;
const mem = results.memory;
results.goals = {
  ...Object.fromEntries([['krr-1024', 30], ['krr-4096', 60], ['matrix-1024', 30]].map(([n, ms]) => [
    `${n}${n.startsWith('matrix') ? ' (reference)' : ''} ≤ +${ms} ms over matrix-21`, {
    value: nav[n].vsMatrix21, met: nav[n].vsMatrix21 <= ms,
    note: `paired ${sgn(nav[n].vsMatrix21Paired)} ms, after ready ${sgn(nav[n].afterReadyVsMatrix21)} ms`,
  }])),
  ...Object.fromEntries([['krr-4096', 1], ['rr_lip-4096', 1], ['merge-4096-64-krr', 1], ['merge-4096-2048-s16', 1],
    ['matrix-1024-s16', 25]].map(([n, ms]) => [`verify ${n} < ${ms} ms`, {
    value: ver[n].public.median, met: ver[n].public.median < ms,
    note: `raw wasm-bindgen verify ${ver[n].raw.median.toFixed(3)} ms: ${ver[n].raw.median < ms ? 'met' : 'missed'}`,
  }])),
  'first verify matrix-1024-s16 (cold: fresh context) < 25 ms': {
    value: nav['matrix-1024-s16'].verify, met: nav['matrix-1024-s16'].verify < 25,
    note: `then the first perturb (alias tables built) ${f(nav['matrix-1024-s16'].firstPerturb)} ms`,
  },
  'krr 4096 mechanism < 1 MB (wasm heap)': {
    value: mem.wasmPerMechanism, met: mem.wasmPerMechanism < 1e6,
    note: `JS heap ${f(mem.jsPerMechanism, 0)} B per mechanism, measureUserAgentSpecificMemory ${f(mem.uaPerMechanism, 0)} B`,
  },
  ...Object.fromEntries(Object.values(results.perturbMany ?? {}).map((r) =>
    [`perturbMany ≥ 3× naive JS, ${r.kind}, k = ${r.k}`, { value: r.ratio, met: r.ratio >= 3 }])),
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify(results, null, 1) + '\n');

const lines = [
  `${machine.cpu}, ${machine.nproc} cores; ${results.browser}; server ${serverName}`,
  `load at start: ${machine.uptimeStart}`, `load at end:   ${machine.uptimeEnd}`, '',
  `### Navigation to a verified mechanism (cold load, new browser context each; median of ${RUNS}; ms from navigation start)`, '',
  '| document | raw bytes | gzip -9 bytes | on the wire | modules loaded | doc TTFB | doc fetched | wasm compile | wasm ready | parse | verify | **verified** | vs matrix-21 | paired | after ready | vs matrix-21 | first perturb | runs (verified) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...NAV.map((n) => { const r = nav[n]; const d = (x) => (n === 'matrix-21' ? '—' : sgn(x)); return `| ${n}${r.async ? ' (verifyAsync)' : ''} | ${sizes[n].raw} | ${sizes[n].gzip9} | ${r.wire} | ${f(r.module)} | ${f(r.docTtfb)} | ${f(r.docFetched)} | ${f(r.wasmCompile)} | ${f(r.wasmReady)} | ${f(r.parse)} | ${f(r.verify)} | **${f(r.verified)}** | ${d(r.vsMatrix21)} | ${d(r.vsMatrix21Paired)} | ${f(r.afterReady)} | ${d(r.afterReadyVsMatrix21)} | ${f(r.firstPerturb)} | ${r.runs.map((x) => f(x.verified, 0)).join(', ')} |`; }),
  '', `### Verify alone (warm page${results.verifyCrossOriginIsolated ? ', cross-origin isolated' : ''}, median of ${REPS} after a warm-up pass and one warm-up each, ms)`, '',
  '| document | raw bytes | gzip -9 bytes | `doc.verify({})`, or `verifyAsync` where refused | raw wasm-bindgen `verify` | raw label getters | runs (public) |',
  '|---|---|---|---|---|---|---|',
  ...VERIFY.map((n) => `| ${n}${ver[n].async ? ' (verifyAsync)' : ''} | ${sizes[n].raw} | ${sizes[n].gzip9} | **${f(ver[n].public.median, 3)}** | ${f(ver[n].raw.median, 3)} | ${f(ver[n].labelGetters.median, 3)} | ${ver[n].public.runs.map((x) => f(x, 2)).join(', ')} |`),
  '', `### Memory kept per verified krr-4096 mechanism (${mem.n} kept alive, then ${mem.n} more; bytes)`, '',
  '| measure | first n | next n |', '|---|---|---|',
  `| wasm linear memory growth / n | ${f(mem.wasmPerMechanism, 0)} | ${f(mem.wasmPerMechanismNext, 0)} |`,
  `| JS heap (usedJSHeapSize) growth / n | ${f(mem.jsPerMechanism, 0)} | ${f(mem.jsPerMechanismNext, 0)} |`,
  `| measureUserAgentSpecificMemory growth / n | ${f(mem.uaPerMechanism, 0)} | ${f(mem.uaPerMechanismNext, 0)} |`,
];
if (results.perturbMany) {
  lines.push('', '### perturbMany vs naive JS k-RR (benches/browser/bench.mjs, 10⁶ inputs per call, median of 5)', '',
    '| kind, k | perturbMany M/s | naive JS M/s | ratio |', '|---|---|---|---|',
    ...Object.values(results.perturbMany).map((r) => `| ${r.kind}, ${r.k} | ${f(r.perturbMany / 1e6)} | ${f(r.naiveJsKrr / 1e6)} | ${f(r.ratio, 2)} |`));
}
lines.push('', '### Goals', '', '| goal | measured | met | note |', '|---|---|---|---|',
  ...Object.entries(results.goals).map(([g, r]) => `| ${g} | ${f(r.value, 3)} | ${r.met ? 'yes' : '**no**'} | ${r.note ?? ''} |`));
console.log(lines.join('\n'));
log(`results written to ${outFile}`);
