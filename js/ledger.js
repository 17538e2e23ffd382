// privlift/ledger: a client-side privacy ledger. Per origin and per attribute it keeps
// the releases made so far (mechanism id, its audited ε's, time) on the device —
// IndexedDB, else localStorage, else memory — and never sends them anywhere. Before a
// release it computes the cumulative bound after it, refuses a release that would exceed
// the budget (PrivliftError code `budget_exceeded`), and can memoise randomised response
// (the same input through the same mechanism gives the same output, as RAPPOR does), so
// re-reporting an unchanged value leaks nothing more.
//
// Bounds (computed in the Rust core, src/accounting/compose.rs), about the user's own
// value X only — like with like, never a notion about the curator's secret S (a document
// whose secret is trivial has S-leakage 0 while sending X in the clear):
//   LDP: basic composition, Σ ε_k (ε_k = the audited LDP w.r.t. X of release k);
//   LIP: Jiang et al. Thm 4, ln(Pmin + e^{Σ_k min(2ε_k, ln((e^{ε_k} − 1 + Pmin)/Pmin))}(1 − Pmin)),
//        with ε_k the audited LIP w.r.t. X of release k (under its declared prior) and Pmin
//        the smallest prior mass of X any of the attribute's mechanisms declares (the bound
//        grows as Pmin shrinks, so this is safe); capped by the LDP total (ε-LDP w.r.t. X
//        implies ε-LIP w.r.t. X) and, for one release, by its own LIP w.r.t. X.

import * as raw from '../pkg/privlift.js';
import { init, PrivliftError } from './privlift.js';
import { invalid, sha256Hex } from './common.js';

const DB = 'privlift-ledger';
const LS_PREFIX = 'privlift-ledger:';

// ---------------------------------------------------------------------------------------
// Storage back ends: { all(origin), add(rec), getMemo(key), putMemo(key, y), clear(origin) }

function memoryStore() {
  const releases = [];
  const memo = new Map();
  return {
    kind: 'memory',
    async all(origin) { return releases.filter((r) => r.origin === origin); },
    async add(rec) { releases.push(rec); },
    async getMemo(key) { return memo.get(key); },
    async putMemo(key, y) { memo.set(key, y); },
    async clear(origin) {
      for (let i = releases.length - 1; i >= 0; i--) if (releases[i].origin === origin) releases.splice(i, 1);
      for (const k of [...memo.keys()]) if (k.startsWith(origin + '\u0000')) memo.delete(k);
    },
  };
}

// JSON has no Infinity: JSON.stringify writes it as null, which would read back as a
// bound of 0 for a release that leaks without bound. Non-finite numbers are kept as
// strings, and read back as numbers.
const NON_FINITE = new Set(['Infinity', '-Infinity', 'NaN']);
const keepNonFinite = (_, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
const readNonFinite = (_, v) => (typeof v === 'string' && NON_FINITE.has(v) ? Number(v) : v);

function localStorageStore(ls) {
  const load = (origin) => JSON.parse(ls.getItem(LS_PREFIX + origin) || '{"releases":[],"memo":{}}', readNonFinite);
  const save = (origin, v) => ls.setItem(LS_PREFIX + origin, JSON.stringify(v, keepNonFinite));
  return {
    kind: 'localstorage',
    async all(origin) { return load(origin).releases; },
    async add(rec) { const v = load(rec.origin); v.releases.push(rec); save(rec.origin, v); },
    async getMemo(key) { return load(key.split('\u0000')[0]).memo[key]; },
    async putMemo(key, y) { const o = key.split('\u0000')[0]; const v = load(o); v.memo[key] = y; save(o, v); },
    async clear(origin) { ls.removeItem(LS_PREFIX + origin); },
  };
}

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function indexedDbStore(idb) {
  const open = idb.open(DB, 1);
  open.onupgradeneeded = () => {
    const db = open.result;
    db.createObjectStore('releases', { autoIncrement: true }).createIndex('origin', 'origin');
    db.createObjectStore('memo');
  };
  const db = await request(open);
  const tx = (store, mode) => db.transaction(store, mode).objectStore(store);
  return {
    kind: 'indexeddb',
    async all(origin) { return request(tx('releases', 'readonly').index('origin').getAll(origin)); },
    async add(rec) { await request(tx('releases', 'readwrite').add(rec)); },
    async getMemo(key) { return request(tx('memo', 'readonly').get(key)); },
    async putMemo(key, y) { await request(tx('memo', 'readwrite').put(y, key)); },
    async clear(origin) {
      const keys = await request(tx('releases', 'readonly').index('origin').getAllKeys(origin));
      const rs = tx('releases', 'readwrite');
      await Promise.all(keys.map((k) => request(rs.delete(k))));
      const ms = tx('memo', 'readwrite');
      const range = globalThis.IDBKeyRange.bound(origin + '\u0000', origin + '\u0001', false, true);
      await request(ms.delete(range));
    },
  };
}

async function pickStore(kind) {
  const idb = globalThis.indexedDB;
  let ls = null;
  try { ls = globalThis.localStorage ?? null; } catch { ls = null; } // access can throw (privacy modes)
  if (kind === 'memory') return memoryStore();
  if (kind === 'indexeddb' || (kind === 'auto' && idb)) {
    if (!idb) throw new PrivliftError('storage', 'IndexedDB is not available here (in Node, pass storage: \'memory\')');
    try {
      return await indexedDbStore(idb);
    } catch (e) {
      if (kind === 'indexeddb') throw new PrivliftError('storage', `IndexedDB failed: ${e && e.message}`, { cause: e });
    }
  }
  if (kind === 'localstorage' || kind === 'auto') {
    if (ls) return localStorageStore(ls);
    if (kind === 'localstorage') throw new PrivliftError('storage', 'localStorage is not available here (in Node, pass storage: \'memory\')');
  }
  warnMemoryOnce();
  return memoryStore();
}

let warnedMemory = false;

/**
 * 'auto' found neither IndexedDB nor localStorage (Node, some workers): the ledger lives
 * in memory and forgets every release when the process ends. Said once on the console,
 * since a `storage` field nobody reads is not saying it; `storage: 'memory'` asks for
 * exactly that and is silent.
 */
function warnMemoryOnce() {
  if (warnedMemory) return;
  warnedMemory = true;
  console.warn("privlift ledger: no IndexedDB or localStorage here, so releases are kept in memory and forgotten when "
    + "this process ends; pass storage: 'memory' to say that is intended");
}

function checkBudget(budget) {
  if (budget === undefined || budget === null) return {};
  if (typeof budget !== 'object') throw invalid('budget', 'expected {ldp?, lip?} in nats');
  for (const [k, v] of Object.entries(budget)) {
    if (k !== 'ldp' && k !== 'lip') throw invalid('budget', `unknown key ${JSON.stringify(k)} (expected ldp, lip)`);
    if (typeof v !== 'number' || !(v >= 0)) throw invalid(`budget.${k}`, 'expected a number ≥ 0 (nats)');
  }
  return budget;
}

/** A client-side ledger of releases for one origin. Create with openLedger(). */
export class Ledger {
  #store;
  #origin;
  #budget;
  /** The last release started: the next one waits for it. */
  #tail = Promise.resolve();

  /** @internal */
  constructor(store, origin, budget) {
    this.#store = store;
    this.#origin = origin;
    this.#budget = budget;
  }

  get origin() { return this.#origin; }
  /** Where releases are kept: 'indexeddb', 'localstorage' or 'memory'. */
  get storage() { return this.#store.kind; }
  get budget() { return { ...this.#budget }; }

  /** The releases recorded for `attribute` (all attributes when omitted), oldest first. */
  async releases(attribute) {
    const all = await this.#store.all(this.#origin);
    return attribute === undefined ? all : all.filter((r) => r.attribute === attribute);
  }

  /**
   * The cumulative bound on what the releases of `attribute` leak together, after also
   * releasing through `mechanism` when one is given: `{releases, ldp, lip}` in nats.
   */
  async bound(attribute, mechanism) {
    if (typeof attribute !== 'string') throw invalid('attribute', 'expected a string');
    await init();
    const recs = await this.releases(attribute);
    if (mechanism !== undefined) recs.push(describe(mechanism, attribute, this.#origin));
    if (recs.length === 0) return { releases: 0, ldp: 0, lip: 0 };
    const pmin = Math.min(...recs.map((r) => r.pmin));
    // A figure that is not a number (a non-finite one a store could not keep) bounds nothing.
    const nats = (v) => (typeof v === 'number' && !Number.isNaN(v) ? v : Infinity);
    const ldps = recs.map((r) => nats(r.ldp_x));
    // Thm 4 reads each release's LIP through Prop 1, as an LDP over the inputs its prior
    // allows. That holds for the composition only when every release's prior allows the
    // same inputs: a release whose prior rules out an input says nothing of its row, and two
    // such releases can each have LIP 0 while together they tell the inputs apart (ln 3
    // in a two-release example). Otherwise each release enters with its LDP w.r.t. X,
    // which holds over every input. Records written before the X-audit existed have no
    // lip_x (their ldp_x bounds it) and none before the support was kept has `zeros`.
    const support = (r) => (Array.isArray(r.zeros) ? `${r.inputs}:${r.zeros.join(',')}` : null);
    const same = recs.every((r) => support(r) !== null && support(r) === support(recs[0]));
    const lips = recs.map((r, i) => (same ? Math.min(r.lip_x === undefined ? ldps[i] : nats(r.lip_x), ldps[i]) : ldps[i]));
    try {
      const ldp = raw.composeLdp(Float64Array.from(ldps));
      const thm4 = raw.composeLip(Float64Array.from(lips), pmin);
      // Each of these bounds the joint LIP, so their minimum does: Thm 4; the LDP total
      // (ε-LDP implies ε-LIP); and for a single release, its own audited LIP.
      const lip = Math.min(thm4, ldp, recs.length === 1 ? lips[0] : Infinity);
      return { releases: recs.length, ldp, lip };
    } catch (e) {
      throw new PrivliftError(e.code ?? 'invalid_argument', e.message, { cause: e });
    }
  }

  /**
   * Perturbs `value` with `mechanism` for `attribute`, if the budget allows, and records
   * the release. With `{memoize: true}`, a value already released through the same
   * mechanism gets the same output again and nothing new is recorded.
   * Resolves to `{output, label, receipt, bound, memoized}`. A unary-encoding mechanism
   * (kind 'unary', e.g. OUE: a bit vector per release) is refused with `invalid_argument`.
   */
  async release(attribute, mechanism, value, options = {}) {
    // One release at a time: the budget check and the record are one step, or releases
    // started together would each pass the check against the same earlier total. Across
    // the tabs of one origin too, where the Web Locks API exists.
    const run = () => this.#release(attribute, mechanism, value, options);
    const turn = this.#tail.then(() => {
      const locks = globalThis.navigator?.locks;
      return locks?.request ? locks.request(`${LS_PREFIX}${this.#origin}`, run) : run();
    });
    this.#tail = turn.catch(() => {});
    return turn;
  }

  async #release(attribute, mechanism, value, { memoize = false } = {}) {
    if (typeof attribute !== 'string' || attribute === '') throw invalid('attribute', 'expected a non-empty string');
    if (mechanism?.kind === 'unary') {
      throw invalid('mechanism', 'the ledger releases one output label per call; unary encodings (bit vectors) are not supported');
    }
    const x = mechanism.inputIndex(value, 'value');
    // The memo key identifies the mechanism (its S-audit numbers, as before the X-audit,
    // so outputs memoised by an earlier version are found again); it bounds nothing.
    const leak = mechanism.leakage();
    const memo = [attribute, mechanism.id, leak.ldpX, leak.lip, x].join('\u0000');
    const key = memoize ? `${this.#origin}\u0000${await sha256Hex(new TextEncoder().encode(memo))}` : null;
    if (key !== null) {
      const y = await this.#store.getMemo(key);
      if (y !== undefined) {
        return { output: y, label: mechanism.outputLabels[y], receipt: mechanism.receipt(y), bound: await this.bound(attribute), memoized: true };
      }
    }
    const after = await this.bound(attribute, mechanism);
    for (const notion of ['ldp', 'lip']) {
      const cap = this.#budget[notion];
      if (cap !== undefined && after[notion] > cap * (1 + 1e-9)) {
        throw new PrivliftError('budget_exceeded',
          `releasing \`${attribute}\` through ${mechanism.id} would bring its total ${notion.toUpperCase()} bound to ` +
          `${after[notion].toFixed(4)} nats, above the budget of ${cap} nats (${after.releases - 1} earlier releases)`);
      }
    }
    // `x` is an index: perturbIndex never reads it as a label (with labels such as
    // ["1", "2", "3"], perturb(1) would refuse the number as ambiguous).
    const y = mechanism.perturbIndex(x);
    await this.#store.add(describe(mechanism, attribute, this.#origin));
    if (key !== null) await this.#store.putMemo(key, y);
    return { output: y, label: mechanism.outputLabels[y], receipt: mechanism.receipt(y), bound: after, memoized: false };
  }

  /** Everything the ledger holds for this origin, for the user to see or save. */
  async export() {
    return { origin: this.#origin, budget: this.budget, releases: await this.releases() };
  }

  /** Forgets every release and memoised output of this origin. */
  async clear() {
    await this.#store.clear(this.#origin);
  }
}

/** The ledger's record of one release: the X-audit's numbers only. */
function describe(mechanism, attribute, origin) {
  const leak = mechanism.leakageX();
  const prior = mechanism.prior;
  const zeros = [];
  prior.forEach((p, i) => { if (!(p > 0)) zeros.push(i); });
  return {
    origin, attribute, mechanismId: mechanism.id, time: new Date().toISOString(),
    ldp_x: leak.ldpX, lip_x: leak.lip, eps_l_x: leak.alip.epsL, eps_u_x: leak.alip.epsU,
    pmin: Math.min(...prior.filter((p) => p > 0)),
    // The inputs the prior allows (every one but `zeros`, out of `inputs`): see bound().
    inputs: prior.length, zeros,
  };
}

/**
 * Opens the ledger of `origin` (default: this page's origin). `budget` caps the bound on
 * the total leakage per attribute, `{ldp?, lip?}` in nats. `storage`: 'auto' (IndexedDB,
 * else localStorage, else memory — with a console warning, once: in Node nothing
 * persists), 'indexeddb', 'localstorage' (each a PrivliftError with code 'storage' where
 * it is unavailable) or 'memory' (silent).
 */
export async function openLedger({ origin, budget, storage = 'auto' } = {}) {
  const o = origin ?? globalThis.location?.origin ?? 'local';
  if (typeof o !== 'string') throw invalid('origin', 'expected a string');
  if (!['auto', 'indexeddb', 'localstorage', 'memory'].includes(storage)) {
    throw invalid('storage', `expected auto, indexeddb, localstorage or memory, got ${JSON.stringify(storage)}`);
  }
  return new Ledger(await pickStore(storage), o, checkBudget(budget));
}
