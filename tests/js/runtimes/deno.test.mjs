// Deno (npm `deno`, pinned in package.json): a script importing the package by its name
// from node_modules, as a Deno project with `"nodeModulesDir": "manual"` does, verifies the
// demo's document, perturbs and gives a receipt, through 'privlift' (which reads the .wasm
// file) and 'privlift/inline' (which must not: the run denies reading that file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, SCENARIO, bin, checkScenario, project } from './harness.mjs';

const WASM = join(ROOT, 'pkg/privlift_bg.wasm');

/** Runs `import * as p from SPECIFIER` and the scenario in Deno, with no network and WASM unreadable if `denyWasm`. */
function deno(specifier, { denyWasm }) {
  const app = project({
    'deno.json': JSON.stringify({ nodeModulesDir: 'manual' }),
    'main.mjs': `import * as p from '${specifier}';\nconsole.log(JSON.stringify(await (async () => {${SCENARIO}})()));\n`,
  });
  try {
    const flags = ['--no-lock', '--no-prompt', '--deny-net', `--allow-read=${app.dir},${ROOT}`];
    if (denyWasm) flags.push(`--deny-read=${WASM}`);
    const out = execFileSync(bin('deno'), ['run', ...flags, 'main.mjs'], {
      cwd: app.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DENO_DIR: join(app.dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    });
    return JSON.parse(out);
  } finally {
    app.remove();
  }
}

test("Deno: 'privlift' verifies, perturbs and gives a receipt", () => {
  checkScenario(assert, deno('privlift', { denyWasm: false }));
});

test("Deno: 'privlift/inline' does the same with the .wasm file unreadable and no network", () => {
  checkScenario(assert, deno('privlift/inline', { denyWasm: true }));
  // The control: the main entry needs that file, so the denial is in force.
  assert.throws(() => deno('privlift', { denyWasm: true }), /could not load the privlift wasm module/);
});
