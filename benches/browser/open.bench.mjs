// The open kinds' perturbation speed, measured the same way in a page (open.html, headless
// Chromium) and in Node (open.mjs --node): strings per second for each kind at n strings,
// short words and 64-byte URLs, through
//   batch       OpenMechanism.perturbBatch (the OS CSPRNG; one UTF-8 buffer in, columns out)
//   perReport   OpenMechanism.perturb, one call and one object per string
//   krrIndices  k-RR's perturbIndices on n indices, k = 256 (the anchor)
// then where a batch's time goes (the module's call alone, the rest of perturbBatch), and
// the ways of turning the strings into one UTF-8 buffer, each timed alone. Node times CPU
// time, a page wall time.

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

/**
 * Milliseconds: the process's CPU time in Node (on a loaded machine wall time is mostly
 * waiting for a core), the page's wall time in a browser.
 */
const now = globalThis.process?.cpuUsage
  ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
  : () => performance.now();

/** Runs fn after a warm-up (2 calls and 300 ms: the JIT tiers up in the background), then `reps` times; units per second. */
function perSecond(units, reps, fn) {
  const w0 = now();
  for (let calls = 0; calls < 2 || now() - w0 < 300; calls++) fn();
  const r = [];
  for (let i = 0; i < reps; i++) {
    const t0 = now();
    fn();
    r.push(units / ((now() - t0) / 1000));
  }
  return { median: median(r), best: Math.max(...r) };
}

/** Median milliseconds of each named stage over `reps` runs of `stages` (after one warm-up run). */
function stageTimes(reps, stages) {
  const times = Object.fromEntries(Object.keys(stages).map((k) => [k, []]));
  for (let rep = -1; rep < reps; rep++) {
    let carried;
    for (const [name, fn] of Object.entries(stages)) {
      const t0 = now();
      carried = fn(carried);
      if (rep >= 0) times[name].push(now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

const FRUIT = ['apple', 'banana', 'cherry', 'kiwi', 'mango', 'orange', 'pear', 'plum', 'grape', 'lemon', 'lime', 'peach',
  'apricot', 'fig', 'melon', 'papaya', 'durian', 'guava', 'lychee', 'date', 'quince', 'pomelo', 'raspberry', 'blueberry'];

/** n values drawn (by a fixed hash of the index) from `pool`, Zipf-like: the first values most often. */
function drawn(pool, n) {
  return Array.from({ length: n }, (_, i) => {
    const u = ((Math.imul(i, 2654435761) >>> 0) + 1) / 2 ** 32;
    return pool[Math.min(pool.length - 1, Math.floor(pool.length * u * u))];
  });
}

/** The value sets: short words (the demo's fruit and numbered words) and URLs of exactly 64 bytes. */
export function valueSets(n) {
  const words = [...FRUIT, ...Array.from({ length: 10_000 }, (_, i) => `word${i}`)];
  const urls = Array.from({ length: 10_000 }, (_, i) => {
    const head = `https://example.org/articles/${i}/`;
    return head + 'x'.repeat(64 - head.length);
  });
  return { words: drawn(words, n), urls64: drawn(urls, n) };
}

/** An open document of `mechanism` (the spec's hash) over strings of at most 64 bytes, claiming `ldp`. */
const openDoc = (mechanism, ldp) => JSON.stringify({
  format: 'privlift-mechanism', version: 1, id: `bench-${mechanism.kind}`, domain: { kind: 'strings', max_bytes: 64 },
  mechanism: { hash: 'xxh32', hash_version: 1, epsilon: 2, ...mechanism }, claims: { ldp_x: ldp },
});

const rounds = Array.from({ length: 16 }, (_, r) => 32 * (r + 1)); // 32, 64, …, 512 bits = 64 bytes
export const KINDS = {
  olh: { kind: 'olh', g: 8 },
  hadamard: { kind: 'hadamard', bits: 20, hash_seed: 7 },
  hcms: { kind: 'hcms', k: 2048, m: 1024 },
  heavy_hitters: { kind: 'heavy_hitters', g: 8, prefix_bits: rounds, split: rounds.map(() => 1 / 16) },
};

/**
 * Runs every measurement; `api` is the package's module (parseMechanism), `handleOf(m)` the
 * raw wasm object of an OpenMechanism (for the stage of the module's call alone).
 */
export async function run({ api, handleOf, n, reps, log }) {
  const { parseMechanism } = api;
  const verified = async (text) => {
    const d = await parseMechanism(text);
    try { return d.verify({ maxLdpX: 5 }); } finally { d.free(); }
  };
  const ldpOf = async (text) => { const d = await parseMechanism(text); try { return d.audit().ldpX; } finally { d.free(); } };
  const sets = valueSets(n);
  const results = { n, reps, clock: globalThis.process?.cpuUsage ? 'cpu' : 'wall', batch: {}, perReport: {} };
  const single = Math.min(n, 200_000);
  for (const [name, mech] of Object.entries(KINDS)) {
    const m = await verified(openDoc(mech, await ldpOf(openDoc(mech, 100))));
    for (const [set, values] of Object.entries(sets)) {
      const key = `${name}/${set}`;
      results.batch[key] = perSecond(n, reps, () => m.perturbBatch(values));
      const few = values.slice(0, single);
      results.perReport[key] = perSecond(single, Math.min(reps, 3), () => { for (const v of few) m.perturb(v); });
      log(`${key}: perturbBatch ${(results.batch[key].median / 1e6).toFixed(2)} M strings/s, `
        + `perturb ${(results.perReport[key].median / 1e6).toFixed(2)} M/s`);
    }
    m.free();
  }

  const k = 256;
  const krr = JSON.stringify({ format: 'privlift-mechanism', version: 1, id: 'krr-256',
    labels: Array.from({ length: k }, (_, i) => `v${i}`), prior: Array(k).fill(1 / k),
    mechanism: { kind: 'krr', epsilon: 2 }, claims: { ldp_x: 2 + 1e-9 } });
  const km = await verified(krr);
  const idx = new Uint32Array(n).map((_, i) => (Math.imul(i, 2654435761) >>> 0) % k);
  results.krrIndices = perSecond(n, reps, () => km.perturbIndices(idx));
  km.free();
  log(`k-RR perturbIndices, k = 256 (anchor): ${(results.krrIndices.median / 1e6).toFixed(2)} M/s`);

  // Where a batch's time goes: perturbBatch's stages, one at a time (ms per n strings).
  const utf8 = new TextEncoder();
  results.stagesMs = {};
  for (const kind of ['olh', 'heavy_hitters']) {
    const m = await verified(openDoc(KINDS[kind], await ldpOf(openDoc(KINDS[kind], 100))));
    const raw = handleOf(m);
    for (const [set, values] of Object.entries(sets)) {
      // `jsSide` is everything perturbBatch does outside the module: the types, the UTF-8
      // written into the module's memory (short ASCII values a byte per unit, others by
      // encodeInto) and the batch object. `stage` is one way of writing it (join, then one
      // encodeInto into the module's view; both value sets are ASCII), `wasm` the module's
      // call on what was staged.
      const stages = stageTimes(reps, {
        stage: () => { const joined = values.join('\0'); return utf8.encodeInto(joined, raw.stageValues(joined.length)).written; },
        wasm: (len) => raw.perturbStaged(len, values.length),
        whole: () => m.perturbBatch(values),
      });
      stages.jsSide = stages.whole - stages.wasm;
      results.stagesMs[`${kind}/${set}`] = stages;
      log(`stages ${kind}/${set} (ms): ${JSON.stringify(results.stagesMs[`${kind}/${set}`], (_, v) => (typeof v === 'number' ? +v.toFixed(1) : v))}`);
    }
    m.free();
  }

  // The ways to one UTF-8 buffer, the encoding alone (ms per n strings).
  results.encodingMs = {};
  for (const [set, values] of Object.entries(sets)) {
    const buf = new Uint8Array(values.length * 65);
    const ends = new Uint32Array(values.length);
    results.encodingMs[set] = stageTimes(reps, {
      joinThenEncode: () => utf8.encode(values.join('\0')),
      joinThenEncodeInto: () => utf8.encodeInto(values.join('\0'), buf).written,
      joinChunksEncodeInto: () => { // what perturbBatch does: 1,024 values joined at a time
        let at = 0;
        for (let i = 0; i < values.length; i += 1024) {
          if (i > 0) buf[at++] = 0;
          at += utf8.encodeInto(values.slice(i, i + 1024).join('\0'), buf.subarray(at)).written;
        }
        return at;
      },
      encodeIntoEach: () => {
        let at = 0;
        for (let i = 0; i < values.length; i++) {
          at += utf8.encodeInto(values[i], buf.subarray(at)).written;
          ends[i] = at;
        }
        return at;
      },
      charCodes: () => { // what wasm-bindgen's string argument does: a byte per UTF-16 unit while ASCII
        let at = 0;
        for (let i = 0; i < values.length; i++) {
          const v = values[i];
          for (let c = 0; c < v.length; c++) buf[at++] = v.charCodeAt(c);
          ends[i] = at;
        }
        return at;
      },
    });
    log(`encoding ${set} (ms): ${JSON.stringify(results.encodingMs[set], (_, v) => (typeof v === 'number' ? +v.toFixed(1) : v))}`);
  }
  const rates = Object.values(results.batch).map((r) => r.median);
  results.goals = { batchAtLeast5M: Math.min(...rates) >= 5e6, slowest: Math.min(...rates) };
  return results;
}

/**
 * perturbBatch of every kind and value set through each package of `apis` (this checkout's
 * first, then others: a before/after in one run), alternated call by call so that the
 * machine's load falls on each alike: M strings/s (median of `reps` after a warm-up) and
 * each package's ratio to the first.
 */
export async function compareBatch({ apis, n, reps, log }) {
  const sets = valueSets(n);
  const results = {};
  for (const [name, mech] of Object.entries(KINDS)) {
    const ms = [];
    for (const { parseMechanism } of apis) {
      const audited = await parseMechanism(openDoc(mech, 100));
      const text = openDoc(mech, audited.audit().ldpX);
      audited.free();
      const d = await parseMechanism(text);
      ms.push(d.verify({ maxLdpX: 5 }));
      d.free();
    }
    for (const [set, values] of Object.entries(sets)) {
      const rates = ms.map(() => []);
      for (let rep = -2; rep < reps; rep++) {
        ms.forEach((m, k) => {
          const t0 = now();
          m.perturbBatch(values);
          if (rep >= 0) rates[k].push(n / ((now() - t0) / 1000) / 1e6);
        });
      }
      const medians = rates.map(median);
      results[`${name}/${set}`] = { mps: medians, ratio: medians.map((r) => r / medians[0]) };
      log(`${name}/${set}: M strings/s ${medians.map((r) => r.toFixed(2)).join(' | ')}`
        + ` (ratio to the first ${medians.map((r) => (r / medians[0]).toFixed(2)).join(' | ')})`);
    }
    ms.forEach((m) => m.free());
  }
  return results;
}
