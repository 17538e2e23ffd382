// Cloudflare Workers: workerd (npm `workerd`, the runtime itself, pinned in package.json) serves
// a Worker bundled as wrangler bundles one (esbuild, conditions workerd/worker/browser, every
// .wasm import a compiled module), which verifies the demo's document, perturbs and answers
// with the receipt; another uses 'privlift/continuous' and 'privlift/design' too, through
// their own `workerd` entries. The first request of the isolate is asserted like the others: work started
// at a Worker's top level is not awaited by a request, and workerd refuses to compile
// WebAssembly from bytes while serving, so only the 'workerd' entry's lazy load from the
// imported module works there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SCENARIO, bin, checkScenario, esbuild, freePort, project } from './harness.mjs';

const WORKER = `
import * as p from 'privlift';
export default {
  async fetch() {
    try {
      return Response.json(await (async () => {${SCENARIO}})());
    } catch (e) {
      return Response.json({ code: e.code, message: String(e.message) }, { status: 500 });
    }
  },
};
`;

/** Bundles src.js into dir/worker.js as wrangler does; each imported .wasm becomes a module of its own. */
async function bundleWorker(dir) {
  const { build } = await esbuild();
  const wasm = [];
  await build({
    entryPoints: [join(dir, 'src.js')], outfile: join(dir, 'worker.js'), bundle: true, format: 'esm',
    platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'], logLevel: 'error',
    plugins: [{
      name: 'compiled-wasm',
      setup(b) {
        b.onResolve({ filter: /\.wasm$/ }, (args) => {
          const file = resolve(args.resolveDir, args.path);
          copyFileSync(file, join(dir, basename(file)));
          wasm.push(basename(file));
          return { path: `./${basename(file)}`, external: true };
        });
      },
    }],
  });
  return wasm;
}

function config(port, wasm) {
  const modules = ['(name = "worker.js", esModule = embed "worker.js")',
    ...wasm.map((w) => `(name = "${w}", wasm = embed "${w}")`)];
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(', ')} ],
  compatibilityDate = "2026-11-01",
);
`;
}

/** Starts workerd on a free port; resolves once it answers, to its URL and a stop function. */
async function serve(dir, wasm) {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    writeFileSync(join(dir, 'config.capnp'), config(port, wasm));
    const child = spawn(bin('workerd'), ['serve', 'config.capnp'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d) => { log += d; });
    child.stderr.on('data', (d) => { log += d; });
    const exited = new Promise((r) => child.on('exit', (code) => r(code)));
    const stop = async () => { child.kill('SIGTERM'); await exited; };
    // Ready when the socket accepts a connection (a TCP probe: no request reaches the Worker).
    const t0 = Date.now();
    while (Date.now() - t0 < 20_000) {
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 100))]);
      if (code !== undefined) break;
      if (await accepts(port)) return { url: `http://127.0.0.1:${port}/`, stop, log: () => log };
    }
    await stop();
    if (attempt >= 2) throw new Error(`workerd did not start: ${log}`);
  }
}

async function accepts(port) {
  const { connect } = await import('node:net');
  return new Promise((r) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => { s.destroy(); r(true); });
    s.on('error', () => r(false));
  });
}

/** Bundles `source` as wrangler does, serves it with workerd and checks `requests` answers with `check(body, i)`. */
async function served(source, modules, requests, check) {
  const app = project({ 'src.js': source });
  let server;
  try {
    const wasm = await bundleWorker(app.dir);
    assert.deepEqual(wasm.sort(), modules, "the 'workerd' conditions import each .wasm as a module");
    server = await serve(app.dir, wasm);
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      const res = await fetch(server.url, { signal: AbortSignal.timeout(15_000) });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      check(body, i);
      console.log(`# workerd request ${i + 1}: ${(performance.now() - t0).toFixed(0)} ms`);
    }
  } finally {
    await server?.stop();
    app.remove();
  }
}

test('a Worker importing privlift verifies, perturbs and gives a receipt under workerd, first request included', async () => {
  await served(WORKER, ['privlift_bg.wasm', 'privlift_open_bg.wasm'], 3, (body, i) => {
    checkScenario(assert, { ...body, before: i === 0 ? body.before : false });
    if (i > 0) assert.equal(body.before, true, 'later requests reuse the loaded module');
  });
});

/**
 * A Worker using the three entries: a continuous receipt, a design, verifyAsync (on the
 * calling thread there), and an open-domain report (the open module 'privlift' imports).
 */
const EVERY_ENTRY = `
import * as p from 'privlift';
import * as c from 'privlift/continuous';
import * as d from 'privlift/design';
const SALARY = ${JSON.stringify(readFileSync(join(ROOT, 'examples/salary-gaussian-lip.json'), 'utf8'))};
const FRUIT = ${JSON.stringify(readFileSync(join(ROOT, 'examples/fruit-olh.json'), 'utf8'))};
export default {
  async fetch() {
    try {
      const before = [c.isInitialized(), d.isInitialized()];
      const salary = await c.verifyContinuousAsync(SALARY, { lip: { eps: 1, delta: 1e-5 } });
      const y = await salary.perturb(52300);
      const r = await salary.receipt(y, 52300);
      const json = await d.design('krr', { prior: { p: [0.5, 0.5] }, epsilon: 1 });
      const m = await p.verifyAsync(json, { maxLdpX: 1.01 });
      const out = await m.perturbIndex(0);
      m.free();
      const openBefore = p.isOpenInitialized();
      const fruit = (await p.parseMechanism(FRUIT)).verify({});
      const report = fruit.perturb('apple');
      return Response.json({ before, after: [c.isInitialized(), d.isInitialized()], userPoint: r.userPoint,
        designed: JSON.parse(json).id, out, offThread: d.offThreadAvailable(), openBefore, openKind: fruit.kind,
        openFields: Object.keys(report).sort() });
    } catch (e) {
      return Response.json({ code: e.code, message: String(e.message) }, { status: 500 });
    }
  },
};
`;

test('privlift/continuous and privlift/design load under workerd, first request included; verifyAsync runs there', async () => {
  await served(EVERY_ENTRY, ['privlift_bg.wasm', 'privlift_continuous_bg.wasm', 'privlift_design_bg.wasm', 'privlift_open_bg.wasm'], 2, (body, i) => {
    assert.deepEqual(body.before, i === 0 ? [false, false] : [true, true], 'nothing is instantiated at import');
    assert.equal(body.openBefore, i > 0, 'the open-domain module loads at the first open document');
    assert.equal(body.openKind, 'olh');
    assert.deepEqual(body.openFields, ['seed', 'y']);
    assert.deepEqual(body.after, [true, true]);
    assert.equal(body.userPoint, 52000);
    assert.equal(body.designed, 'krr-eps1');
    assert.ok(body.out === 0 || body.out === 1, `output ${body.out}`);
    assert.equal(body.offThread, false, 'workerd has no workers: the calling thread');
  });
});

test('privlift/workerd bundled with the .wasm as bytes fails with an init error that says how to import it', async () => {
  // esbuild's `binary` loader turns the import into a Uint8Array, which workerd would refuse
  // to compile; the entry refuses it first, naming the cause (run in Node: no workerd needed).
  const { build } = await esbuild();
  const app = project();
  try {
    const outfile = join(app.dir, 'bundle.js');
    await build({
      stdin: { contents: `import * as p from 'privlift/workerd';\nexport async function scenario() {${SCENARIO}}\n`, resolveDir: app.dir },
      outfile, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', loader: { '.wasm': 'binary' }, logLevel: 'error',
    });
    const { scenario } = await import(pathToFileURL(outfile).href);
    await assert.rejects(scenario(), (e) => {
      assert.equal(e.code, 'init');
      assert.match(e.message, /gave Uint8Array/);
      assert.match(e.message, /wrangler/);
      assert.doesNotMatch(e.message, /Vite/);
      return true;
    });
  } finally {
    app.remove();
  }
});
