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
  assert.equal(doc.verify().perturb('a'), 0);
});
