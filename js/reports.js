// Report envelopes and their delivery to a collector.
//
// A report carries only what the collector needs to count it once: the mechanism's id, the
// SHA-256 of the exact document the client verified (so counts of different versions are
// never mixed), the released output, and a random 128-bit id from crypto.getRandomValues
// (so a retried post is counted once). Never the user's value, no clock, no identifier.

import { PrivliftError, invalid, describe, checkUrl, hex, sha256Hex } from './common.js';

const HEX = /^[0-9a-f]+$/;

/** A fresh 128-bit report id from the platform CSPRNG, lower-case hex. */
export function reportId() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * An open-domain report (`{seed, y}`, `{j, bit}`, `{j, l, bit}` or `{round, seed, y}`, each
 * field a non-negative integer) copied field by field, or null for any other output.
 * The collector checks its fields against the document.
 */
function openReport(output) {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return null;
  const keys = Object.keys(output).sort().join(',');
  if (!OPEN_REPORT_KEYS.includes(keys)) return null;
  const entries = Object.entries(output);
  return entries.every(([, v]) => Number.isSafeInteger(v) && v >= 0) ? Object.fromEntries(entries) : null;
}

/** The fields of each open kind's reports, in canonical order (the columns of a batch). */
const OPEN_FIELDS = Object.freeze({
  olh: Object.freeze(['seed', 'y']),
  hadamard: Object.freeze(['j', 'bit']),
  hcms: Object.freeze(['j', 'l', 'bit']),
  heavy_hitters: Object.freeze(['round', 'seed', 'y']),
});

/** The field sets of the open kinds' reports, sorted and joined. */
const OPEN_REPORT_KEYS = Object.values(OPEN_FIELDS).map((f) => [...f].sort().join(','));

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** The most bytes one crypto.getRandomValues call fills. */
const RANDOM_CHUNK = 65536;

/**
 * Many reports of one open mechanism as columns: one Uint32Array per report field of its
 * kind (`seed` and `y` for olh, `j` and `bit` for hadamard, `j`, `l` and `bit` for hcms,
 * `round`, `seed` and `y` for heavy_hitters), each `length` long, report i being row i.
 * From OpenMechanism.perturbBatch. `report(i)` and `canonical(i)` give one report as the
 * per-report API does; sendReports and beaconOnPageHide take a batch (or a `slice` of it)
 * as they take an array of envelopes, writing its JSON straight from the columns. Each
 * report's id is drawn from crypto.getRandomValues the first time it is needed and kept,
 * so posting the same reports again is counted once.
 */
export class OpenReportBatch {
  #columns;
  #ids;
  #start;

  /** @internal `columns`: one Uint32Array per field of `kind`; `ids`: the shared id store of the batch. */
  constructor({ kind, mechanism, sha256, columns, ids, start = 0 }) {
    const fields = OPEN_FIELDS[kind];
    this.#columns = columns;
    this.#start = start;
    this.#ids = ids ?? { bytes: null, length: columns[0].length };
    Object.defineProperties(this, {
      kind: { value: kind, enumerable: true },
      mechanism: { value: mechanism, enumerable: true },
      sha256: { value: sha256, enumerable: true },
      fields: { value: fields, enumerable: true },
      length: { value: columns[0].length, enumerable: true },
      ...Object.fromEntries(fields.map((f, k) => [f, { value: columns[k], enumerable: true }])),
    });
    Object.freeze(this);
  }

  #row(i, name) {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) {
      throw invalid(name, `expected an integer in [0, ${this.length}), got ${describe(i)}`);
    }
    return i;
  }

  /** Report `i` as its object (`{seed, y}`, …: what OpenMechanism.perturb returns). */
  report(i) {
    const k = this.#row(i, 'i');
    return Object.fromEntries(this.fields.map((f, c) => [f, this.#columns[c][k]]));
  }

  /** Report `i`'s canonical stored text (`"s:y"`, `"j:bit"`, `"j:l:bit"`, `"r:s:y"`). */
  canonical(i) {
    const k = this.#row(i, 'i');
    return this.#columns.map((c) => c[k]).join(':');
  }

  /** Reports `start` to `end` (exclusive) as a batch over the same columns and report ids. */
  slice(start = 0, end = this.length) {
    const s = Math.max(0, Math.min(this.length, Math.trunc(start) || 0));
    const e = Math.max(s, Math.min(this.length, Math.trunc(end) || 0));
    return new OpenReportBatch({
      kind: this.kind, mechanism: this.mechanism, sha256: this.sha256,
      columns: this.#columns.map((c) => c.subarray(s, e)), ids: this.#ids, start: this.#start + s,
    });
  }

  /** The 16 bytes of every report id of the whole batch, drawn once. */
  #idBytes() {
    const store = this.#ids;
    if (store.bytes === null) {
      const bytes = new Uint8Array(16 * store.length);
      for (let at = 0; at < bytes.length; at += RANDOM_CHUNK) crypto.getRandomValues(bytes.subarray(at, at + RANDOM_CHUNK));
      store.bytes = bytes;
    }
    return store.bytes;
  }

  /** The envelope of report `i` (`{mechanism, sha256, output, report_id}`, as OpenMechanism.report gives). */
  envelope(i) {
    const k = this.#row(i, 'i');
    return Object.freeze({ mechanism: this.mechanism, sha256: this.sha256, output: this.report(k), report_id: this.#id(k) });
  }

  #id(k) {
    const bytes = this.#idBytes();
    let s = '';
    for (let b = 16 * (this.#start + k), end = b + 16; b < end; b++) s += HEX_BYTE[bytes[b]];
    return s;
  }

  /** The JSON of every envelope, joined by commas, written from the columns (no object per report). */
  toEnvelopesJson() {
    const head = `{"mechanism":${JSON.stringify(this.mechanism)},"sha256":"${this.sha256}","output":{`;
    const names = this.fields.map((f, c) => `${c === 0 ? '' : ','}"${f}":`);
    const cols = this.#columns;
    const out = new Array(this.length);
    for (let k = 0; k < this.length; k++) {
      let s = head;
      for (let c = 0; c < cols.length; c++) s += names[c] + cols[c][k];
      out[k] = `${s}},"report_id":"${this.#id(k)}"}`;
    }
    return out.join(',');
  }
}

/** The envelope's four fields, checked (`invalid_argument` naming the report and field). */
function envelope(r, i) {
  const name = `reports[${i}]`;
  if (r === null || typeof r !== 'object') throw invalid(name, `expected a report from Mechanism.report(), got ${describe(r)}`);
  const { mechanism, sha256, output, report_id: id } = r;
  if (typeof mechanism !== 'string') throw invalid(`${name}.mechanism`, 'expected the mechanism id');
  if (typeof sha256 !== 'string' || sha256.length !== 64 || !HEX.test(sha256)) {
    throw invalid(`${name}.sha256`, 'expected 64 lower-case hex digits');
  }
  const open = openReport(output);
  if (open === null && typeof output !== 'string' && !(typeof output === 'number' && Number.isFinite(output))) {
    throw invalid(`${name}.output`, 'expected an output label, index, bit string, released number or open report');
  }
  if (typeof id !== 'string' || id.length !== 32 || !HEX.test(id)) {
    throw invalid(`${name}.report_id`, 'expected 32 lower-case hex digits');
  }
  return { mechanism, sha256, output: open ?? output, report_id: id };
}

/**
 * The JSON body of a batch: `{"reports": [...]}`, each report reduced to its four fields;
 * an OpenReportBatch written from its columns.
 */
export function reportsBody(reports) {
  if (reports instanceof OpenReportBatch && reports.length > 0) return `{"reports":[${reports.toEnvelopesJson()}]}`;
  if (!Array.isArray(reports) || reports.length === 0) {
    throw invalid('reports', `expected a non-empty array of reports, got ${describe(reports)}`);
  }
  return JSON.stringify({ reports: reports.map(envelope) });
}

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
});

/**
 * Posts `reports` (envelopes, or an OpenReportBatch: a collector reads at most 4 MB a post,
 * about 20,000 open reports, so post a large batch as its `slice`s) to a collector's
 * `POST /v1/reports` (`url`), retrying a failed attempt
 * (network error, HTTP 408, 429 or 5xx: the collector stored none of the batch, or may
 * have stored it without its answer arriving) with the same body, so the same report
 * ids: the collector counts each id once. Resolves to `{accepted, duplicates}` from the collector's
 * 202. Throws PrivliftError `invalid_argument` (a malformed report, before any request),
 * `http` (a 4xx other than 408 and 429, not retried: `status` and the collector's `serverCode` set),
 * `network` (every attempt failed, or `signal` aborted them: its reason is the `cause`).
 */
export async function sendReports(url, reports, options = {}) {
  checkUrl(url);
  const { retries = 3, backoffMs = 250, signal, fetch: fetchFn = globalThis.fetch } = options ?? {};
  if (!Number.isInteger(retries) || retries < 0) throw invalid('options.retries', `expected an integer ≥ 0, got ${describe(retries)}`);
  if (typeof backoffMs !== 'number' || !(backoffMs >= 0)) throw invalid('options.backoffMs', `expected a number ≥ 0, got ${describe(backoffMs)}`);
  const body = reportsBody(reports);
  // An abort (before or during an attempt, or while waiting to retry) ends the retries.
  const aborted = (e) => new PrivliftError('network', `posting reports to ${url} was aborted`, { cause: e });
  let last = null;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      try {
        await sleep(backoffMs * 2 ** (attempt - 1), signal);
      } catch (e) {
        throw aborted(e);
      }
    }
    let res;
    try {
      res = await fetchFn(url, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body, signal,
        keepalive: body.length < 60_000, // survives the page's unload when small enough
      });
    } catch (e) {
      if (signal?.aborted) throw aborted(e);
      last = new PrivliftError('network', `could not post reports to ${url}: ${e && e.message ? e.message : e}`, { cause: e });
      continue;
    }
    if (res.status === 200 || res.status === 202) {
      const ack = await res.json().catch(() => null);
      if (!ack || !Number.isInteger(ack.accepted) || !Number.isInteger(ack.duplicates)) {
        throw new PrivliftError('http', `the collector at ${url} answered ${res.status} without {accepted, duplicates}`, { status: res.status });
      }
      return { accepted: ack.accepted, duplicates: ack.duplicates };
    }
    const detail = await res.json().catch(() => null);
    const serverCode = typeof detail?.code === 'string' ? detail.code : undefined;
    last = new PrivliftError('http', `posting reports to ${url} gave HTTP ${res.status}${serverCode ? ` (${serverCode})` : ''}`,
      { status: res.status, serverCode });
    // 408: the request did not arrive in time (transient); other 4xx: the batch itself was refused.
    if (res.status !== 408 && res.status !== 429 && res.status < 500) throw last;
  }
  throw last;
}

/**
 * On page hide, hands the reports `pending()` returns to `navigator.sendBeacon` (one
 * batch, no answer: the next page load re-sends whatever the app still holds, and the
 * report ids keep that from double-counting). Returns a function that stops listening.
 * `options.target` (default `globalThis`) and `options.beacon` are for tests.
 */
export function beaconOnPageHide(url, pending, options = {}) {
  checkUrl(url);
  if (typeof pending !== 'function') throw invalid('pending', `expected a function returning the unsent reports, got ${describe(pending)}`);
  const target = options.target ?? globalThis;
  const beacon = options.beacon ?? ((u, data) => globalThis.navigator?.sendBeacon?.(u, data) ?? false);
  const send = () => {
    const reports = pending();
    if (!(Array.isArray(reports) || reports instanceof OpenReportBatch) || reports.length === 0) return;
    // text/plain is CORS-safelisted: a beacon of another type to a collector on another
    // origin is dropped by browsers (no preflight for beacons). The collector reads the
    // body as JSON whatever its type.
    beacon(String(url), new Blob([reportsBody(reports)], { type: 'text/plain;charset=utf-8' }));
  };
  const onVisibility = () => { if (globalThis.document?.visibilityState === 'hidden') send(); };
  target.addEventListener('pagehide', send);
  target.addEventListener('visibilitychange', onVisibility);
  return () => {
    target.removeEventListener('pagehide', send);
    target.removeEventListener('visibilitychange', onVisibility);
  };
}
