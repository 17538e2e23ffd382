// The cost model against the wasm client's time: for each mechanism kind and size, the
// first `verify` of a fresh module (its own Node process, or its own Chromium page: nothing
// compiled or optimised before), its work units (Work::of, read from the `too_costly`
// refusal of a budget of 1), and the seconds per 10⁸ units. Prints one JSON line per
// document, then, per kind, the slowest document the default budget accepts.
//
//   node benches/wasm/cost.mjs [--browser] [--kinds matrix,unary,srr,...] [--out FILE]
//   node benches/wasm/cost.mjs --one KIND SIZE        (one Node measurement: what the loop spawns)
//   node benches/wasm/cost.mjs --sizes 901,1301 --kinds gaussian   (other sizes than SIZES')
//
// The documents are in cost-documents.mjs. Timings are measured here, never asserted in a test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveFolder } from '../../scripts/net.mjs';
import { DOCUMENTS, SIZES, measure } from './cost-documents.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};

/** Runs `each(kind, n)` in a fresh headless-Chromium page per document. */
async function inChromium(jobs) {
  const { chromium } = await import('playwright-core');
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const server = await serveFolder(repo);
  const { base } = server;
  const userDataDir = mkdtempSync(join(tmpdir(), 'pw-cost-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    for (const [kind, n, report] of jobs) {
      const page = await context.newPage();
      await page.goto(`${base}/benches/browser/cost.html?kind=${kind}&n=${n}`);
      await page.waitForFunction(() => window.__cost !== undefined, null, { timeout: 600_000, polling: 200 });
      report(await page.evaluate(() => window.__cost));
      await page.close();
    }
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
    server.stop();
  }
}

if (argv[0] === '--one') {
  const { parseMechanism } = await import('privlift');
  const { parseContinuousMechanism } = await import('privlift/continuous');
  const parse = { discrete: parseMechanism, continuous: parseContinuousMechanism };
  console.log(JSON.stringify(await measure(parse, argv[1], argv[2])));
} else {
  const kinds = opt('kinds', Object.keys(DOCUMENTS).join(',')).split(',');
  const rows = [];
  const report = (r) => { rows.push(r); console.log(JSON.stringify(r)); };
  const sizes = (kind) => (opt('sizes') ? opt('sizes').split(',').map(Number) : SIZES[kind]);
  const jobs = kinds.flatMap((kind) => sizes(kind).map((n) => [kind, n, report]));
  if (argv.includes('--browser')) {
    await inChromium(jobs);
  } else {
    for (const [kind, n] of jobs) {
      report(JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', kind, String(n)],
        { encoding: 'utf8', maxBuffer: 1 << 20 })));
    }
  }
  const slowest = {};
  for (const r of rows.filter((r) => r.atDefault === 'accepted')) {
    if (!slowest[r.kind] || r.verify > slowest[r.kind].verify) slowest[r.kind] = r;
  }
  console.log(`slowest accepted at the default budget (${argv.includes('--browser') ? 'Chromium' : 'Node'}):`);
  for (const [kind, r] of Object.entries(slowest)) {
    console.log(`  ${kind.padEnd(17)} n = ${String(r.n).padEnd(7)} ${r.work?.toExponential(2)} units  first verify ${r.verify.toFixed(3)} s`);
  }
  console.log('cheapest refused at the default budget:');
  const cheapest = {};
  for (const r of rows.filter((r) => r.atDefault === 'too_costly')) {
    if (!cheapest[r.kind] || r.work < cheapest[r.kind].work) cheapest[r.kind] = r;
  }
  for (const [kind, r] of Object.entries(cheapest)) {
    console.log(`  ${kind.padEnd(17)} n = ${String(r.n).padEnd(7)} ${r.work?.toExponential(2)} units  refused in ${(r.refusal * 1000).toFixed(1)} ms`);
  }
  if (opt('out')) writeFileSync(opt('out'), JSON.stringify(rows, null, 1));
}
