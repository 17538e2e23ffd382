// Loading failures (own file: node --test runs each file in a fresh process, so the
// module is not loaded yet here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, isInitialized, parseMechanism, PrivliftError } from 'privlift';

test('a bad module is an `init` error, and init can be retried', async () => {
  assert.equal(isInitialized(), false);
  await assert.rejects(init(new Uint8Array([0x3c, 0x21, 0x64, 0x6f])), (e) => {
    assert.ok(e instanceof PrivliftError);
    assert.equal(e.code, 'init');
    assert.ok(e.cause instanceof Error);
    return true;
  });
  assert.equal(isInitialized(), false);
  await init(); // the default: pkg/privlift_bg.wasm read from disk
  assert.equal(isInitialized(), true);
  const doc = await parseMechanism('{"format":"privlift-mechanism","version":1,"id":"x","labels":["a"],'
    + '"prior":[1],"mechanism":{"kind":"matrix","p_y_given_x":[[1]]},"claims":{"ldp_x":0}}');
  assert.equal(doc.verify().perturbIndex(0), 0);
});

test('the three entries load the same way: init, initSync, isInitialized', async () => {
  const { readFileSync } = await import('node:fs');
  const continuous = await import('privlift/continuous');
  const design = await import('privlift/design');
  const entries = [
    [continuous, 'pkg-continuous/privlift_continuous_bg.wasm'],
    [design, 'pkg-design/privlift_design_bg.wasm'],
  ];
  for (const [entry, wasm] of entries) {
    for (const name of ['init', 'initSync', 'isInitialized']) assert.equal(typeof entry[name], 'function', name);
    assert.equal(entry.isInitialized(), false);
    assert.throws(() => entry.initSync(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])),
      (e) => e instanceof PrivliftError && e.code === 'init');
    assert.throws(() => entry.initSync(), (e) => e instanceof PrivliftError && e.code === 'invalid_argument');
    entry.initSync(new WebAssembly.Module(readFileSync(new URL(`../../${wasm}`, import.meta.url))));
    assert.equal(entry.isInitialized(), true);
    await entry.init(); // resolves at once: already loaded
  }
  assert.deepEqual(await design.designMethods().then((m) => m.includes('krr')), true);
  assert.equal('initDesign' in design, false);
});
