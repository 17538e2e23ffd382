// Type test of js/privlift.d.ts (npm run typecheck). Compiled, never run: the
// `@ts-expect-error` lines fail the check if the types stop rejecting them.
import {
  init, initOpen, isOpenInitialized, parseMechanism, fetchMechanism, PrivliftError, errorCodes, sendReports, beaconOnPageHide,
  parseOpenMechanism, OpenReportBatch, type ReportEnvelope,
  type MechanismDocument, type Mechanism, type Policy, type Receipt, type ReceiptEntry,
  type Leakage, type Verification, type Check, type Claims, type ErrorCode, type MechanismKind,
  type OutputIndices,
} from 'privlift';

export async function usage(): Promise<void> {
  await init();
  await init(new URL('https://example.invalid/privlift_bg.wasm'));
  await initOpen(new URL('https://example.invalid/privlift_open_bg.wasm'));
  const openReady: boolean = isOpenInitialized();
  void openReady;
  const doc: MechanismDocument = await parseMechanism('{"format": "privlift-mechanism"}');
  const claims: Claims = doc.claims;
  const ldpX: number | undefined = claims.ldpX;
  const policy: Policy = { maxLdpX: 1.1, maxLip: 2 };
  // @ts-expect-error: policies are camelCase only (`maxLip`)
  const snake: Policy = { max_lip: 2 };
  const mech: Mechanism = doc.verify(policy);
  const checked: Verification = doc.check();
  const first: Check | undefined = checked.claims[0];
  const label: string = mech.perturb('yes');
  const byIndex: number = mech.perturbIndex(0);
  // @ts-expect-error perturbIndex takes an index, never a label
  mech.perturbIndex('yes');
  // @ts-expect-error perturb takes a label, never an index
  mech.perturb(0);
  // @ts-expect-error perturb returns a label, not an index
  const notIndex: number = mech.perturb('yes');
  const ys: OutputIndices = mech.perturbIndices([0, 1, 2]);
  const y0: number | undefined = ys[0];
  // @ts-expect-error perturbIndices takes indices, never labels
  mech.perturbIndices(['a']);
  const seeded: OutputIndices = mech.perturbIndicesSeededForTesting(new Uint32Array([0, 1]), 7n);
  const same: Uint32Array = mech.perturbIndicesInPlace(new Uint32Array([0, 1]));
  // @ts-expect-error perturbIndicesInPlace writes into a Uint32Array, not an array
  mech.perturbIndicesInPlace([0, 1]);
  const r: Receipt = mech.receipt(label);
  const e: ReceiptEntry = r.entries[0];
  const lift: number = e.lift;
  const leak: Leakage = mech.leakage();
  const eu: number = leak.alip.epsU;
  const labels: readonly string[] = mech.labels;
  const m2: Mechanism = await fetchMechanism('https://example.invalid/m.json', { maxLdpX: 1 }, { cache: 'no-store', maxBytes: 1 << 20 });
  // The policy is optional, as at runtime (TS2554 before).
  const m4: Mechanism = await fetchMechanism('https://example.invalid/m.json');
  const codes: readonly ErrorCode[] = errorCodes;
  const report: ReportEnvelope = mech.report(label);
  const sha: string = mech.sha256 + doc.sha256 + report.report_id;
  const ack: { accepted: number; duplicates: number } = await sendReports('https://example.invalid/v1/reports', [report], { retries: 2 });
  const stop: () => void = beaconOnPageHide('https://example.invalid/v1/reports', () => [report]);
  // The DOM's own values fit the structural types (RequestInit, AbortSignal, URL, fetch, sendBeacon).
  const requestInit: RequestInit = { headers: new Headers({ accept: 'application/json' }), credentials: 'include', signal: AbortSignal.timeout(5000) };
  await fetchMechanism(new URL('https://example.invalid/m.json'), {}, requestInit);
  await fetchMechanism(new Request('https://example.invalid/m.json'), {}, { ...requestInit, maxBytes: 1 << 20, cache: 'no-store' });
  await sendReports(new URL('https://example.invalid/v1/reports'), [report], { fetch: globalThis.fetch, signal: new AbortController().signal });
  const stop2 = beaconOnPageHide('https://example.invalid/v1/reports', () => [report], { target: window, beacon: navigator.sendBeacon.bind(navigator) });
  // @ts-expect-error a report is read-only
  report.output = 'other';
  try {
    mech.perturbIndex(-1);
  } catch (err) {
    if (err instanceof PrivliftError) {
      const code: ErrorCode = err.code;
      if (code === 'policy_violated' || code === 'http') console.log(err.message, err.status);
    }
  }
  // Limits about X, about S, and the cost budget; the X-audit, the receipt's two sections.
  const strict: Policy = { maxLip: 0.5, maxLipS: 1, maxLdpS: 2, maxEpsLS: 1, maxEpsUS: 1, maxVerifyWork: 1e9 };
  const lx: Leakage = mech.leakageX();
  const [lo, hi]: [number, number] = mech.receiptBounds();
  const any: number = mech.lipUnderAnyPrior();
  const rowLabel: string = e.label;
  const secretRows: ReceiptEntry[] | undefined = r.secret?.entries;
  const costly: ErrorCode = 'too_costly';
  const xAudit: Leakage = checked.leakageX;
  void [stop2, ldpX, first, label, byIndex, notIndex, ys, seeded, lift, eu, labels, m2, codes, r, strict, lx, lo, hi, any, rowLabel, secretRows, costly, xAudit];
  // @ts-expect-error: rows have no `secret` field any more (label, index)
  e.secret;

  // @ts-expect-error: not a policy key
  doc.verify({ maxLDPX: 1 });
  // @ts-expect-error: limits are numbers
  doc.verify({ maxLdpX: '1' });
  // @ts-expect-error: not an error code
  const bad: ErrorCode = 'policy_violation';
  // The generated unions (tests/generated.rs): discrete and continuous kinds are apart.
  const kinds: MechanismKind[] = ['matrix', 'per_secret', 'unary', doc.kind, mech.kind];
  // @ts-expect-error: a continuous kind is not a discrete one
  const notDiscrete: MechanismKind = 'gaussian';
  void [kinds, notDiscrete];
  // @ts-expect-error: Mechanism has no public constructor
  new (mech.constructor as typeof Mechanism)();
  // @ts-expect-error: perturbIndices returns indices, not labels
  const wrong: string[] = mech.perturbIndices([0]);
  // @ts-expect-error: results are camelCase (`maxLiftBound`)
  r.max_lift_bound;
  void [bad, wrong, snake];
}

import {
  parseContinuousMechanism, fetchContinuousMechanism, CONTINUOUS_KINDS,
  type ContinuousDocument, type ContinuousMechanism, type ContinuousReceipt, type ContinuousPolicy, type ContinuousKind,
  type ContinuousReportEnvelope,
} from 'privlift/continuous';
import { designContinuous, fitGmm, type GmmFit } from 'privlift/design';

export async function continuousUsage(): Promise<void> {
  const fit: GmmFit = await fitGmm([1, 2, 3], 3);
  const json: string = await designContinuous({
    method: 'gaussian-lip', domain: { lo: 0, hi: 10, step: 0.1 },
    prior: { gmm: { weights: fit.weights, means: fit.means, sds: fit.sds } }, epsilon: 1, delta: 1e-6,
  });
  const doc: ContinuousDocument = await parseContinuousMechanism(json);
  const policy: ContinuousPolicy = { lip: { eps: 1, delta: 1e-5 } };
  const mech: ContinuousMechanism = doc.verify(policy);
  const y: number = mech.perturb(3.3);
  const r: ContinuousReceipt = mech.receipt(y, 3.3);
  const curve: number[] = r.ratios;
  // Without `x` (and for the notion the document does not claim) these are undefined, not null.
  const atUser: number | undefined = r.userRatio ?? r.userPoint ?? r.userX;
  const lipEps: number | undefined = r.lip?.eps ?? r.ldp?.eps;
  void [atUser, lipEps];
  const envelope: ContinuousReportEnvelope = mech.report(y);
  const released: number = envelope.output;
  const versions: string = mech.sha256 + doc.sha256 + envelope.report_id + envelope.mechanism;
  const m2: ContinuousMechanism = await fetchContinuousMechanism('https://example.invalid/c.json', undefined);
  // The policy is optional, as at runtime (TS2554 before).
  const m3: ContinuousMechanism = await fetchContinuousMechanism('https://example.invalid/c.json');
  const kinds: readonly ContinuousKind[] = [...CONTINUOUS_KINDS, doc.kind, 'sampling'];
  // @ts-expect-error: a discrete kind is not a continuous one
  const notContinuous: ContinuousKind = 'matrix';
  void [curve, m2, kinds, notContinuous];
  // @ts-expect-error: continuous policies are {lip, ldp}, not discrete limits
  doc.verify({ maxLip: 1 });
  // @ts-expect-error: values are numbers, not labels
  mech.perturb('3.3');
}

import * as inline from 'privlift/inline';
import { initSync } from 'privlift';
export function inlineUsage(bytes: Uint8Array): void {
  initSync(bytes);
  const ready: boolean = inline.isInitialized();
  void ready;
}

// The designers run off the calling thread, with an AbortSignal and progress.
import { design as designOffThread, offThreadAvailable, terminateIdleWorkers, type OffThreadOptions } from 'privlift/design';

export async function offThreadUsage(): Promise<void> {
  const options: OffThreadOptions = { signal: new AbortController().signal, onProgress: (f: number) => void f };
  const doc: string = await designOffThread('orr-lip', { prior: { p: [0.5, 0.5] }, epsilon: 1 }, options);
  const fit: GmmFit = await fitGmm([1, 2], 2, { signal: AbortSignal.timeout(1000) });
  // @ts-expect-error progress is a fraction, not an object
  await designContinuous({ method: 'sampling', domain: { lo: 0, hi: 1, step: 0.1 }, prior: { gaussian: { mean: 0, sd: 1 } }, epsilon: 1 }, { onProgress: (p: { done: number }) => p });
  const available: boolean = offThreadAvailable();
  terminateIdleWorkers();
  void [doc, fit, available];
}

import { verifyAsync, AsyncMechanism } from 'privlift';
import { verifyContinuousAsync, type AsyncContinuousMechanism } from 'privlift/continuous';

export async function offThreadVerification(signal: AbortSignal): Promise<void> {
  const m: AsyncMechanism = await verifyAsync('{}', { maxLdpX: 1 }, { signal, onProgress: (f: number) => void f });
  const y: number = await m.perturbIndex(0);
  const label: string = await m.perturb('yes');
  // @ts-expect-error: its methods answer by promise
  const now: number = m.perturbIndex(0);
  // @ts-expect-error perturb takes a label, never an index
  void m.perturb(0);
  const labels: readonly string[] = m.labels;
  const receipt: Promise<import('privlift').Receipt> = m.receipt(y);
  m.free();
  const c: AsyncContinuousMechanism = await verifyContinuousAsync('{}', { lip: { eps: 1, delta: 1e-5 } });
  const v: number = await c.perturb(52000);
  void [label, now, labels, receipt, v];
  // @ts-expect-error: made by verifyAsync only
  void new AsyncMechanism();
}

export async function openBatch(url: string): Promise<void> {
  const m = (await parseOpenMechanism('{}')).verify();
  const batch = m.perturbBatch(['apple', 'kiwi']);
  const n: number = batch.length;
  const text: string = batch.canonical(0);
  if (batch.kind === 'olh') {
    const seeds: Uint32Array = batch.seed;
    const ys: Uint32Array = batch.y;
    void [seeds, ys];
    // @ts-expect-error: an olh batch has no `bit` column
    void batch.bit;
  }
  const unknown: unknown = batch;
  if (unknown instanceof OpenReportBatch) void unknown.slice(0, 1).report(0);
  await sendReports(url, batch.slice(0, 1000));
  beaconOnPageHide(url, () => batch);
  // @ts-expect-error: values are strings
  m.perturbBatch([1, 2]);
  void [n, text];
}
