// privlift/inline (the wasm inside the JS, loaded on first use) and initSync, in Node.
// Each runs in a child process: the module is loaded once per process, and these tests
// are about how it gets loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url);

const DOC = JSON.stringify({
  format: 'privlift-mechanism', version: 1, id: 'inline', labels: ['a', 'b', 'c'], prior: [0.2, 0.5, 0.3],
  mechanism: { kind: 'krr', epsilon: 1 }, claims: { ldp_x: 1 },
});

/** Runs `code` as an ES module in a fresh Node process (cwd: the repository), returns its JSON stdout. */
function run(code) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out);
}

const FRUIT = await readFile(new URL('examples/fruit-olh.json', ROOT), 'utf8');
const WASM_FILES = ['pkg/privlift_bg.wasm', 'pkg-open/privlift_open_bg.wasm'];

test('privlift/inline needs no .wasm file: its own bytes load on first use, with no init() call', async () => {
  // The package's files (package.json "files") without the client modules' .wasm files:
  // only the embedded bytes can load.
  const { files } = JSON.parse(await readFile(new URL('package.json', ROOT), 'utf8'));
  const dir = await mkdtemp(join(tmpdir(), 'privlift-inline-'));
  try {
    for (const f of files.filter((f) => !WASM_FILES.includes(f))) {
      await mkdir(join(dir, dirname(f)), { recursive: true });
      await copyFile(new URL(f, ROOT), join(dir, f));
    }
    const r = run(`
      const p = await import(${JSON.stringify(pathToFileURL(join(dir, 'js/inline.js')).href)});
      const m = (await p.parseMechanism(${JSON.stringify(DOC)})).verify({ maxLdpX: 1 });
      const y = m.perturb('b');
      const r = m.receipt(y);
      const openBefore = p.isOpenInitialized();
      const o = (await p.parseMechanism(${JSON.stringify(FRUIT)})).verify({});
      const report = o.perturb('apple');
      console.log(JSON.stringify({ ready: p.isInitialized(), y, entries: r.entries.length, openBefore,
        openReady: p.isOpenInitialized(), fields: Object.keys(report).sort() }));
    `);
    assert.equal(r.ready, true);
    assert.ok(['a', 'b', 'c'].includes(r.y), r.y);
    assert.equal(r.entries, 3);
    assert.equal(r.openBefore, false, 'the open-domain module waits for an open-domain document');
    assert.equal(r.openReady, true);
    assert.deepEqual(r.fields, ['seed', 'y']);
    // The plain entry from the same copy has no .wasm to load: the control.
    assert.throws(() => run(`
      const p = await import(${JSON.stringify(pathToFileURL(join(dir, 'js/privlift.js')).href)});
      await p.parseMechanism(${JSON.stringify(DOC)});
    `), /could not load the privlift wasm module/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('privlift/inline has no top-level await (bundlers targeting scripts and CommonJS refuse it)', async () => {
  const source = await readFile(new URL('js/inline.js', ROOT), 'utf8');
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  assert.doesNotMatch(code, /^\s*await\b|^[^\n(]*=\s*await\b/m);
});

test('the inline modules are the same bytes as pkg/privlift_bg.wasm and pkg-open/privlift_open_bg.wasm', async () => {
  for (const [inline, file] of [['pkg/privlift_inline.js', WASM_FILES[0]], ['pkg-open/privlift_open_inline.js', WASM_FILES[1]]]) {
    const { WASM_BASE64 } = await import(new URL(inline, ROOT).href);
    const wasm = await readFile(new URL(file, ROOT));
    assert.ok(Buffer.from(WASM_BASE64, 'base64').equals(wasm), `${inline}: regenerate with scripts/build-wasm.sh`);
  }
});

test('initSync loads from bytes or a compiled module, synchronously; a bad module is an init error', () => {
  const r = run(`
    import { readFileSync } from 'node:fs';
    import { initSync, isInitialized, parseMechanism, PrivliftError } from 'privlift';
    let bad = null;
    try { initSync(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])); } catch (e) { bad = e instanceof PrivliftError && e.code; }
    const before = isInitialized();
    initSync(new WebAssembly.Module(readFileSync('pkg/privlift_bg.wasm')));
    const after = isInitialized();
    initSync(readFileSync('pkg/privlift_bg.wasm')); // a no-op once loaded
    const m = (await parseMechanism(${JSON.stringify(DOC)})).verify({});
    console.log(JSON.stringify({ bad, before, after, y: m.perturbIndex(0) }));
  `);
  assert.deepEqual([r.bad, r.before, r.after], ['init', false, true]);
  assert.ok(r.y < 3);
});
