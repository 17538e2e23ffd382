// Shared by the runtime tests of this folder: a throw-away project that depends on the
// package (node_modules/privlift → the repository: resolved through package.json "exports"
// as an installed copy is, without packing), esbuild as bundlers use it, a free loopback port.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export { freePort } from '../../../scripts/net.mjs';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const bin = (name) => join(ROOT, 'node_modules/.bin', name);

/** The demo's k-RR age document (ε = 1 nat LDP), as text. */
export const DOC_PATH = join(ROOT, 'www/mechanisms/age-krr.json');
export const DOC = readFileSync(DOC_PATH, 'utf8');
export const DOC_ID = JSON.parse(DOC).id;

/**
 * What every runtime's script does with the package, as the source of an async function
 * body over `p` (the imported entry): verify the document against a policy, perturb the first value (an index),
 * and return the receipt's summary. `isInitialized` before the first call shows that nothing
 * loaded at import.
 */
export const SCENARIO = `
  const before = p.isInitialized();
  const m = (await p.parseMechanism(${JSON.stringify(DOC)})).verify({ maxLdpX: 1 });
  const y = m.perturbIndex(0);
  const r = m.receipt(y);
  return { before, after: p.isInitialized(), id: m.id, y, labels: m.labels.length, entries: r.entries.length };
`;

/** A fresh folder with a package.json and node_modules/privlift; `files` written into it. */
export function project(files = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'privlift-runtime-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/privlift'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { privlift: '*' } }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** esbuild's JS API (a devDependency, pinned in package.json). */
export async function esbuild() {
  return import(join(ROOT, 'node_modules/esbuild/lib/main.js'));
}

/** The scenario's result checked the same way in every runtime. */
export function checkScenario(assert, r) {
  assert.equal(r.before, false, 'nothing is instantiated at import');
  assert.equal(r.after, true);
  assert.equal(r.id, DOC_ID);
  assert.ok(Number.isInteger(r.y) && r.y >= 0 && r.y < r.labels, `output index ${r.y}`);
  assert.equal(r.entries, r.labels, 'one receipt entry per value');
}
