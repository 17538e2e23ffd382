// privlift/inline through a bundler (esbuild, as Vite, wrangler and most edge toolchains use
// it): the bundle must carry the module's bytes and load from them, never from a .wasm file.
// With `"sideEffects": false` in package.json esbuild (like Rollup and webpack) dropped
// js/inline.js's body and kept its re-exports, so the bundle looked for the .wasm after all.
// scripts/check-bundlers.mjs checks Vite and webpack too, in a browser, by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SCENARIO, checkScenario, esbuild, project } from './harness.mjs';

const { WASM_BASE64 } = await import(pathToFileURL(join(ROOT, 'pkg/privlift_inline.js')).href);

/** Bundles `import * as p from SPECIFIER` and the scenario for browsers; returns the bundle's path and text. */
async function bundle(dir, specifier) {
  const { build } = await esbuild();
  const entry = join(dir, 'entry.js');
  const outfile = join(dir, 'out', 'bundle.js');
  await build({
    stdin: { contents: `import * as p from '${specifier}';\nexport async function scenario() {${SCENARIO}}\n`, resolveDir: dir, sourcefile: entry },
    bundle: true, format: 'esm', platform: 'browser', minify: true, outfile, logLevel: 'error',
  });
  return { outfile, text: readFileSync(outfile, 'utf8') };
}

/** Runs the bundle's scenario in a fresh Node process whose fetch() throws; returns its result. */
function runWithoutFetch(outfile) {
  const code = `
    globalThis.fetch = () => { throw new Error('fetch() was called'); };
    const { scenario } = await import(${JSON.stringify(pathToFileURL(outfile).href)});
    console.log(JSON.stringify(await scenario()));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

test('an esbuild bundle of privlift/inline carries the module and verifies, perturbs and gives a receipt without fetching', async () => {
  const app = project();
  try {
    const { outfile, text } = await bundle(app.dir, 'privlift/inline');
    assert.ok(text.includes(WASM_BASE64), 'the bundle holds the embedded module (package.json "sideEffects" keeps js/inline.js)');
    // The bundle lies in a folder with no pkg/ beside it: only the embedded bytes can load.
    checkScenario(assert, runWithoutFetch(outfile));
    console.log(`# esbuild bundle of privlift/inline: ${text.length} B`);
  } finally {
    app.remove();
  }
});

test("a bundle of 'privlift' does not carry the embedded module (pages fetch the .wasm, which caches)", async () => {
  const app = project();
  try {
    const { text } = await bundle(app.dir, 'privlift');
    assert.ok(!text.includes(WASM_BASE64.slice(0, 4096)));
    assert.ok(text.length < 200_000, `${text.length} B`);
  } finally {
    app.remove();
  }
});
