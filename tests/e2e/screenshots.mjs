// The README's screenshots (docs/demo.png, docs/salary.png) and their record,
// docs/screenshots.json: the SHA-256 of every source they were taken from (www/, the staged
// mechanism documents and the synthetic population's truth) and of the PNGs themselves.
// demo.test.mjs is their only producer: with PRIVLIFT_BLESS_SCREENSHOTS=1 it writes the PNGs
// and the record; otherwise it checks the record against the current files.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const bless = process.env.PRIVLIFT_BLESS_SCREENSHOTS === '1';
export const STALE = 'screenshots are stale: run PRIVLIFT_BLESS_SCREENSHOTS=1 node --test tests/e2e/';
export const RECORD = 'docs/screenshots.json';
export const PNGS = ['docs/demo.png', 'docs/salary.png'];

/** What the screenshots' browser context is: fixed, so that a re-run draws the same pixels. */
export const contextOptions = {
  viewport: { width: 900, height: 1200 }, deviceScaleFactor: 1, locale: 'en-US', timezoneId: 'UTC',
  colorScheme: 'light', reducedMotion: 'reduce',
};
/** The clock the page sees (the ledger shows the time of each release). */
export const fixedTime = '2025-01-15T10:30:00Z';

/**
 * Runs in the screenshots' page before its scripts: crypto.getRandomValues becomes a seeded
 * generator (mulberry32), so that the values shown as sent are the same at every bless.
 * Only that one browser context gets it; every other test uses the browser's CSPRNG.
 */
export function seededRandomness() {
  let s = 0x2545f491;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  Crypto.prototype.getRandomValues = function getRandomValues(a) {
    const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (let i = 0; i < b.length; i++) b[i] = next() & 0xff;
    return a;
  };
}

const sha256 = (root, path) => createHash('sha256').update(readFileSync(join(root, path))).digest('hex');

/** Every file under `dir` (relative to `root`), as sorted paths relative to `root`. */
function files(root, dir) {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name).slice(root.length).replace(/^\/+/, ''))
    .sort();
}

/** SHA-256 of each source the screenshots show: www/ and the staged documents (target/site/mechanisms). */
export function sources(root) {
  const paths = [...files(root, 'www'), ...files(root, 'target/site/mechanisms').filter((f) => f.endsWith('.json'))];
  return Object.fromEntries(paths.map((p) => [p, sha256(root, p)]));
}

/** Writes the record of a bless: the sources and the PNGs just written. */
export function writeRecord(root) {
  const record = {
    about: 'Written by PRIVLIFT_BLESS_SCREENSHOTS=1 node --test tests/e2e/ (tests/e2e/screenshots.mjs): the SHA-256 ' +
      'of the sources docs/demo.png and docs/salary.png were taken from, and of the PNGs. The e2e test fails when they differ.',
    context: { ...contextOptions, time: fixedTime },
    sources: sources(root),
    screenshots: Object.fromEntries(PNGS.map((p) => [p, sha256(root, p)])),
  };
  writeFileSync(join(root, RECORD), JSON.stringify(record, null, 1) + '\n');
}

/**
 * The differences between the record and the current files, one line each (empty when the
 * screenshots are current): a source added, removed or changed since the bless, or a PNG
 * that is not the one blessed.
 */
export function staleness(root) {
  if (!existsSync(join(root, RECORD))) return [`${RECORD} is missing`];
  const record = JSON.parse(readFileSync(join(root, RECORD), 'utf8'));
  const now = sources(root);
  const diffs = [];
  for (const p of new Set([...Object.keys(record.sources ?? {}), ...Object.keys(now)])) {
    if (!(p in now)) diffs.push(`${p}: removed since the bless`);
    else if (!(p in (record.sources ?? {}))) diffs.push(`${p}: added since the bless`);
    else if (record.sources[p] !== now[p]) diffs.push(`${p}: changed since the bless`);
  }
  for (const p of PNGS) {
    if (!existsSync(join(root, p))) diffs.push(`${p}: missing`);
    else if (record.screenshots?.[p] !== sha256(root, p)) diffs.push(`${p}: not the blessed picture`);
  }
  return diffs.sort();
}
