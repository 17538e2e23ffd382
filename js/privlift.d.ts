// Types of the privlift ES module (js/privlift.js). Hand-written, except the marked region
// (error codes and mechanism kinds, generated from the Rust core); keep the rest in step
// with src/verify/, src/leakage/mod.rs, src/mechanism/receipt.rs and src/document/wire.rs.
// Every privacy quantity is in nats.

// BEGIN GENERATED from the Rust core by `PRIVLIFT_BLESS_GENERATED=1 cargo test --test generated`; do not edit.
/** Codes thrown by the Rust core (`privlift::Error::CODES`). */
export type CoreErrorCode =
  | 'json'
  | 'unsupported_format'
  | 'unsupported_version'
  | 'unsupported_mechanism'
  | 'non_finite'
  | 'negative_probability'
  | 'not_normalized'
  | 'dimension_mismatch'
  | 'duplicate_label'
  | 'too_many_symbols'
  | 'empty_alphabet'
  | 'prior_mismatch'
  | 'unknown_value'
  | 'unknown_output'
  | 'claim_violated'
  | 'policy_violated'
  | 'no_claims'
  | 'invalid_argument'
  | 'rng'
  | 'io'
  | 'infeasible'
  | 'design_failed'
  | 'too_costly';

/** The `kind` tag of a discrete mechanism document (`privlift::document::MechanismKind::tag`). */
export type MechanismKind = 'matrix' | 'per_secret' | 'unary' | 'krr' | 'rr_lip' | 'merge' | 'sparse' | 'srr';
// END GENERATED

/** Codes thrown only by the JS layer. */
export type JsErrorCode =
  /** fetchMechanism: the server answered with a non-2xx status (see `status`). */
  | 'http'
  /**
   * fetchMechanism: fetch() failed (offline, DNS, CORS, aborted) or the body could not be read.
   * sendReports: every attempt failed, or `signal` aborted them (the abort reason is the `cause`).
   */
  | 'network'
  /** The wasm module could not be loaded or instantiated. */
  | 'init'
  /** Ledger: the release would take the attribute's total leakage bound above the budget. */
  | 'budget_exceeded'
  /** Ledger: the requested storage (IndexedDB) failed. */
  | 'storage'
  /** A method was called on an object whose wasm memory free() (or a `using` block) released. */
  | 'invalid_state'
  /**
   * A synchronous verify() was given a document that costs more than the calling thread
   * verifies (`SYNC_VERIFY_WORK`, about 50 ms): use verifyAsync (verifyContinuousAsync).
   */
  | 'needs_async';

/**
 * Every `code` a PrivliftError can carry. Of the core's, `infeasible` and `design_failed`
 * come from the curator side ('privlift/design') only; `too_costly` means verifying (or
 * downloading) the document would cost more than the budget (`maxVerifyWork`,
 * `fetchOptions.maxBytes`).
 */
export type ErrorCode = CoreErrorCode | JsErrorCode;

/** Every code a PrivliftError can carry. */
export const errorCodes: readonly ErrorCode[];

/** The one error class privlift throws. Branch on `code`, never on `message`. */
export class PrivliftError extends Error {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; status?: number; serverCode?: string });
  readonly name: 'PrivliftError';
  readonly code: ErrorCode;
  /** The HTTP status, for `code === 'http'`. */
  readonly status?: number;
  /** The error code a collector answered with, for `code === 'http'` from sendReports. */
  readonly serverCode?: string;
  /**
   * For `code === 'needs_async'` from fetchMechanism or fetchContinuousMechanism: the
   * document's bytes as downloaded, to pass to verifyAsync / verifyContinuousAsync
   * without downloading them again.
   */
  readonly document?: Uint8Array;
}

/**
 * Limits the user accepts, in nats. Absent limits are not checked: leave a key out to set
 * no limit. A limit that is there is a number ≥ 0 (`Infinity`: no limit); `null`,
 * `undefined`, a string, a boolean, an object, `NaN` or a negative number is an
 * `invalid_argument`, never a limit silently removed. Keys are camelCase only: a snake_case
 * key (`max_ldp_x`, the spelling of the CLI's JSON policy files) is an `invalid_argument`
 * naming its camelCase form (`maxLdpX`); any other key is an `invalid_argument` too (its
 * message quotes the key with control and bidi characters escaped, at most 64 characters). A plain object (`{…}` or `Object.create(null)`) whose own
 * properties hold the limits: a `Map`, a class instance or inherited limits are an
 * `invalid_argument`, never silently ignored.
 *
 * The first five are about **the value the user enters** (X): `maxLdpX`/`maxLdp` cap the
 * prior-free LDP w.r.t. X (a lying prior cannot weaken it); `maxLip`, `maxEpsL`, `maxEpsU`
 * cap LIP/ALIP w.r.t. X under the document's declared prior. A document cannot escape
 * them by declaring a trivial secret. The `…S` limits are about the curator's secret S
 * and are checked in addition. `maxVerifyWork` is the verification cost budget in work
 * units (default 2^28; a document above it is refused with `too_costly`).
 */
export interface Policy {
  maxLdpX?: number;
  maxLdp?: number;
  maxLip?: number;
  maxEpsL?: number;
  maxEpsU?: number;
  maxLdpS?: number;
  maxLipS?: number;
  maxEpsLS?: number;
  maxEpsUS?: number;
  maxVerifyWork?: number;
}

/** (εl, εu) of asymmetric LIP. */
export interface Alip {
  epsL: number;
  epsU: number;
}

/** What a document claims (nats): its `claims` member, with the keys in camelCase (`ldp_x` → `ldpX`). */
export interface Claims {
  /** ε-LDP w.r.t. the secret S (equals ldpX when S = X). */
  ldp?: number;
  /** ε-LDP w.r.t. X (prior-free). */
  ldpX?: number;
  /** ε-LIP w.r.t. S. */
  lip?: number;
  /** (εl, εu)-ALIP w.r.t. S. */
  alip?: Alip;
  /** ε-LIP w.r.t. X under every prior of `priors` (each a distribution over X). */
  bpLip?: { eps: number; priors: number[][] };
  /** ℓ1-privacy w.r.t. S (Zarrabian et al. Sec. VI-B): max_y ℓ1-lift ≤ e^εu − 1, ℓ1-lift-inverse ≤ e^εl − 1. */
  l1?: Alip;
  /** χ²-privacy w.r.t. S: max_y χ²-lift ≤ (e^εu − 1)², χ²-lift-inverse ≤ (e^εl − 1)². */
  chi2?: Alip;
  /** α-lift privacy w.r.t. S at order α > 1: max_y α-lift ≤ e^εu, α-lift-inverse ≤ e^εl. */
  alpha?: { order: number; epsL: number; epsU: number };
  /** ε-SRLIP w.r.t. S (privacy funnel Def 3) for X = (X¹,…,Xᵐ) with these attribute sizes (product |X|, row-major). */
  srlip?: { eps: number; attributes: number[] };
}

/**
 * Every leakage measure of the audit (nats unless said otherwise; may be Infinity).
 * A verification computes what the claims, the policy and the receipts read: the measures it
 * did not need (`miSy`, `miXy`, `maximalLeakage`, and the ℓ1/χ²/α lift measures without such
 * a claim) are NaN; `MechanismDocument.audit()` computes every one.
 */
export interface Leakage {
  lip: number;
  alip: Alip;
  ldp: number;
  ldpX: number;
  miSy: number;
  miXy: number;
  maximalLeakage: number;
  /** A ratio: min over (s, y) of the lift. */
  minLift: number;
  /** A ratio: max over (s, y) of the lift. */
  maxLift: number;
  l1Lift: number;
  chi2Lift: number;
  alphaLift: number;
  l1LiftInverse: number;
  chi2LiftInverse: number;
  alphaLiftInverse: number;
  alphaOrder: number;
}

/** One checked claim or policy limit. */
export interface Check {
  /** `ldp`, `ldpX`, `lip`, `alip.epsL`, `alip.epsU`, `bpLip`, `l1.epsL`, `l1.epsU`, `chi2.eps*`, `alpha.eps*`, `srlip` (claims: the path of the claim in `Claims`) or a policy key (`maxLdpX`, ...). */
  notion: string;
  /** The claimed budget or the policy limit. */
  bound: number;
  /** The audited leakage. */
  actual: number;
  holds: boolean;
}

/** The outcome of checking a document. */
export interface Verification {
  /** The audit w.r.t. the document's secret S (what the claims are about). */
  leakage: Leakage;
  /** The audit w.r.t. the user's value X under the declared prior (what the policy reads). */
  leakageX: Leakage;
  claims: Check[];
  policy: Check[];
  claimsHold: boolean;
  policyHolds: boolean;
}

/** One row of a receipt: a value of X (or of S) and what the released output does to it. */
export interface ReceiptEntry {
  /** Index in the alphabet (X's labels, or S's in `secret`). */
  index: number;
  label: string;
  /** P(v). */
  prior: number;
  /** P(v | y) for the released y. */
  posterior: number;
  /** posterior / prior (0 when the prior is 0). */
  lift: number;
}

/** Rows of one variable, with the bounds its audit proved (for every output). */
export interface ReceiptSection {
  entries: ReceiptEntry[];
  /** No lift of this section falls below this. */
  minLiftBound: number;
  /** No lift of this section exceeds this. */
  maxLiftBound: number;
  /** The audited εl, εu (nats) of the sampler that runs. */
  epsL: number;
  epsU: number;
}

/**
 * What the released output tells anyone about each value the user could have entered
 * (`entries`, always) and, when the document declares a secret S, about each secret
 * value (`secret`). Every bound is proved by the audit of the sampler that runs under the
 * prior the rows report; none comes from a claim.
 */
export interface Receipt extends ReceiptSection {
  mechanismId: string;
  /** Index of the released output; undefined for a unary-encoding bit vector. */
  outputIndex: number | undefined;
  /** Label of the released output (unary: the bits as '0'/'1' characters, bit j for input label j). */
  output: string;
  /** The curator's secret S, when the document declares one. */
  secret: ReceiptSection | undefined;
}

/**
 * An input value where either form is read (`inputIndex`, `perturbBits`, the ledger): a
 * label (string), or an integer index into `labels`. A number is always an index — with
 * labels such as ["1", "2", "3"] the number 1 would be the label "2", so a number whose
 * decimal form is the label of another input is refused as ambiguous (`invalid_argument`):
 * pass the label as a string, or use `perturbIndex`.
 */
export type Value = string | number;

/**
 * A batch's output indices: the narrowest unsigned array that holds every output index of
 * the document — a `Uint8Array` up to 256 outputs, a `Uint16Array` up to 65,536, else a
 * `Uint32Array` (`Mechanism.outputLabels.length` decides; never a draw).
 */
export type OutputIndices = Uint8Array | Uint16Array | Uint32Array;

/** A mechanism document as JSON text, UTF-8 bytes, or an object. */
export type DocumentInput = string | ArrayBuffer | ArrayBufferView | object;

// These types name no type of the `dom` lib or of @types/node (RequestInfo, RequestInit,
// BufferSource, WebAssembly, Request, Response, URL, AbortSignal, Blob) so that they
// compile under any `lib`: `["es2022"]` alone, with @types/node, a worker's lib, or the
// DOM (tests/js/types-nodom.test-d.ts). Each stands for the DOM type structurally, and
// the DOM's values are assignable to it.

/** A URL object (`URL` in browsers and Node). */
export interface UrlLike { readonly href: string }
/** A fetch Request or Response: something with a `url`. */
export interface RequestLike { readonly url: string }
/** A compiled `WebAssembly.Module` (any object: wasm-bindgen tells it from the other inputs at run time). */
export type WasmModuleLike = object;

/**
 * What `init` accepts: where the .wasm module comes from — a URL (string or URL), a
 * Request or Response, the module's bytes (ArrayBuffer or a view such as Uint8Array), or
 * a compiled WebAssembly.Module.
 */
export type InitInput = string | UrlLike | RequestLike | ArrayBuffer | ArrayBufferView | WasmModuleLike;

/** Where a document is fetched from: a URL (string or URL object) or a Request. */
export type FetchInput = string | UrlLike | RequestLike;

/** An `AbortSignal`. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The options of fetch() (`RequestInit`), each as loose as the DOM's own: privlift hands
 * them to fetch() as they are.
 */
export interface RequestInitLike {
  method?: string;
  headers?: object | [string, string][];
  body?: unknown;
  signal?: AbortSignalLike | null;
  credentials?: string;
  cache?: string;
  mode?: string;
  redirect?: string;
  referrer?: string;
  referrerPolicy?: string;
  integrity?: string;
  keepalive?: boolean;
  priority?: string;
}

declare global {
  // `[Symbol.dispose]` (for `using`) without requiring lib esnext.disposable; the same
  // declaration as TypeScript's lib and @types/node, which it merges with.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/**
 * Loads the wasm module once (idempotent; later calls ignore `input`). Optional: every
 * function that needs the module loads it.
 */
export function init(input?: InitInput): Promise<void>;

/**
 * Instantiates the wasm module synchronously from its bytes or a compiled
 * WebAssembly.Module (workers, Jest, edge functions); a no-op once loaded. Throws
 * `init` on a bad module. Browsers refuse synchronous compilation of more than 4 KB on the
 * main thread: use init() there, or import 'privlift/inline'.
 */
export function initSync(module: ArrayBuffer | ArrayBufferView | WasmModuleLike): void;

/** Whether init() has completed. */
export function isInitialized(): boolean;

/**
 * Loads the open-domain wasm module once (pkg-open/privlift_open_bg.wasm next to the
 * package by default; idempotent, later calls ignore `input`). Optional: parseMechanism
 * loads it when it meets an open-domain document (kinds `olh`, `hadamard`, `hcms`,
 * `heavy_hitters`), so a page of other documents never downloads it. Call it to load
 * early or to pass the module from elsewhere.
 */
export function initOpen(input?: InitInput): Promise<void>;

/** Whether initOpen() has completed. */
export function isOpenInitialized(): boolean;

/**
 * Options of fetch() plus `maxBytes`: the largest document accepted (default 64 MiB); a
 * larger body is refused with `too_costly` while it downloads, before it is parsed.
 */
export interface FetchOptions extends RequestInitLike {
  maxBytes?: number;
}

/**
 * Parses and validates a mechanism document within the verification budget of `policy`
 * (its `maxVerifyWork`; none: the default): what verifying would refuse is refused with
 * `too_costly` as it is read. Throws PrivliftError (parse codes, `invalid_argument`, `too_costly`).
 */
export function parseMechanism(document: OpenDocumentJson, policy?: Policy): Promise<OpenMechanismDocument>;
export function parseMechanism(document: DocumentInput, policy?: Policy): Promise<MechanismDocument>;

/** parseMechanism for an open-domain document only; any other is `unsupported_mechanism`. */
export function parseOpenMechanism(document: DocumentInput, policy?: Policy): Promise<OpenMechanismDocument>;

/** The open-domain kinds. */
export type OpenKind = 'olh' | 'hadamard' | 'hcms' | 'heavy_hitters';

/** An open-domain document as an object (parseMechanism then types its result). */
export interface OpenDocumentJson {
  format: 'privlift-mechanism';
  version: 1;
  id: string;
  description?: string;
  domain: { kind: 'strings'; max_bytes: number };
  prior?: { values: string[]; p: number[] };
  mechanism: { kind: OpenKind; hash: 'xxh32'; hash_version: 1; epsilon: number } & Record<string, unknown>;
  claims: { ldp_x: number; lip?: number };
}

/** One report of an open kind: `{seed, y}` (olh), `{j, bit}` (hadamard), `{j, l, bit}` (hcms), `{round, seed, y}` (heavy_hitters). */
export type OpenReport =
  | { readonly seed: number; readonly y: number }
  | { readonly j: number; readonly bit: number }
  | { readonly j: number; readonly l: number; readonly bit: number }
  | { readonly round: number; readonly seed: number; readonly y: number };

/** The audit of an open mechanism's randomiser w.r.t. the user's value X, in nats. */
export interface OpenAudit {
  /** LDP w.r.t. X (prior-free). */
  readonly ldpX: number;
  /** LIP w.r.t. X under the sparse prior, for every seed (without a prior: the LDP). */
  readonly lip: number;
  /** −ln of the least lift any report gives any value. */
  readonly epsL: number;
  /** ln of the greatest lift. */
  readonly epsU: number;
}

export interface OpenVerification {
  readonly audit: OpenAudit;
  readonly claims: readonly Check[];
  readonly policy: readonly Check[];
  readonly claimsHold: boolean;
  readonly policyHolds: boolean;
}

/** A listed value of an open receipt: its lift range over every spread of the unlisted mass. */
export interface OpenReceiptEntry {
  readonly value: string;
  readonly prior: number;
  /** Whether the value's bucket under the report's seed is the reported one. */
  readonly inBucket: boolean;
  readonly minLift: number;
  readonly maxLift: number;
}

/** What one open report tells about every value: each listed one, and one range for all others. */
export interface OpenReceipt {
  readonly mechanismId: string;
  readonly report: OpenReport;
  readonly listed: readonly OpenReceiptEntry[];
  /** The prior mass of every unlisted value together (1 without a prior). */
  readonly otherMass: number;
  /** Bounds on every unlisted value's lift (both 0 when `otherMass` is 0). */
  readonly unlistedMinLift: number;
  readonly unlistedMaxLift: number;
  readonly epsL: number;
  readonly epsU: number;
}

/** A parsed, validated, not yet verified open-domain document. */
export class OpenMechanismDocument {
  private constructor();
  readonly id: string;
  readonly sha256: string;
  readonly kind: OpenKind;
  readonly description: string | undefined;
  /** The most UTF-8 bytes a value may have. */
  readonly maxBytes: number;
  readonly prior: { readonly values: readonly string[]; readonly p: readonly number[]; readonly otherMass: number } | undefined;
  readonly claims: { readonly ldpX: number; readonly lip: number | undefined };
  audit(): OpenAudit;
  check(policy?: Policy): OpenVerification;
  verify(policy?: Policy): OpenMechanism;
  free(): void;
}

/** A verified open-domain mechanism, perturbing strings with crypto.getRandomValues. */
export class OpenMechanism {
  private constructor();
  readonly id: string;
  readonly sha256: string;
  readonly kind: OpenKind;
  readonly maxBytes: number;
  /** One report of `value` (at most `maxBytes` UTF-8 bytes, no U+0000; else `invalid_argument`, never echoing it). */
  perturb(value: string): OpenReport;
  /**
   * Reports of many strings at once, as columns (one Uint32Array per report field): the
   * strings cross into wasm as one UTF-8 buffer. Every value is checked before any draw;
   * a refusal is `invalid_argument` naming `values[i]` (never echoing it), and no batch.
   */
  perturbBatch(values: readonly string[]): OpenReportBatch;
  /** perturbBatch with a deterministic generator from `seed`: tests and simulations only. */
  perturbBatchSeededForTesting(values: readonly string[], seed: number | bigint): OpenReportBatch;
  /** Deterministic reports' canonical text from `seed`: tests and simulations only. */
  perturbManySeededForTesting(values: readonly string[], seed: number | bigint): string[];
  /** The receipt of a report (object or canonical text). */
  receipt(report: OpenReport | string): OpenReceipt;
  /** The canonical stored text: `"s:y"`, `"j:bit"`, `"j:l:bit"`, `"r:s:y"`. */
  canonical(report: OpenReport | string): string;
  /** The envelope for sendReports, its output the report object. */
  report(report: OpenReport | string): ReportEnvelope;
  audit(): OpenAudit;
  verification(): OpenVerification;
  free(): void;
}

/** The columns of an open kind's reports: one Uint32Array per field, in canonical order. */
export type OpenReportColumns =
  | { readonly kind: 'olh'; readonly fields: readonly ['seed', 'y']; readonly seed: Uint32Array; readonly y: Uint32Array }
  | { readonly kind: 'hadamard'; readonly fields: readonly ['j', 'bit']; readonly j: Uint32Array; readonly bit: Uint32Array }
  | {
    readonly kind: 'hcms'; readonly fields: readonly ['j', 'l', 'bit'];
    readonly j: Uint32Array; readonly l: Uint32Array; readonly bit: Uint32Array;
  }
  | {
    readonly kind: 'heavy_hitters'; readonly fields: readonly ['round', 'seed', 'y'];
    readonly round: Uint32Array; readonly seed: Uint32Array; readonly y: Uint32Array;
  };

/**
 * Many reports of one open mechanism (OpenMechanism.perturbBatch): report i is row i of
 * every column. sendReports and beaconOnPageHide take it (or a `slice`: a collector reads
 * at most 4 MB a post, about 20,000 reports) and write its JSON from the columns; report
 * ids are drawn once, at the first need, so a batch posted again is counted once.
 */
export type OpenReportBatch = OpenReportColumns & OpenReportBatchMethods;

export interface OpenReportBatchMethods {
  /** The mechanism's id and the SHA-256 of its document, as in a ReportEnvelope. */
  readonly mechanism: string;
  readonly sha256: string;
  readonly length: number;
  /** Report `i` as its object (what OpenMechanism.perturb returns); `invalid_argument` out of range. */
  report(i: number): OpenReport;
  /** Report `i`'s canonical stored text (`"s:y"`, …). */
  canonical(i: number): string;
  /** Report `i`'s envelope, with its batch-wide report id. */
  envelope(i: number): ReportEnvelope;
  /** Reports `start` to `end` (exclusive), sharing the columns and report ids. */
  slice(start?: number, end?: number): OpenReportBatch;
  /** Every envelope's JSON, joined by commas (what sendReports posts inside `{"reports": [...]}`). */
  toEnvelopesJson(): string;
}

/** `instanceof` for batches; build one with OpenMechanism.perturbBatch. */
export const OpenReportBatch: { prototype: OpenReportBatchMethods; [Symbol.hasInstance](v: unknown): v is OpenReportBatch };

/** What a client sends a collector for one released output (`Mechanism.report`). */
export interface ReportEnvelope {
  /** The document's `id`. */
  readonly mechanism: string;
  /** SHA-256 of the document's bytes (lower-case hex): counts of two versions never mix. */
  readonly sha256: string;
  /** The released output's label (unary encoding: the bits as a '0'/'1' string; a continuous mechanism: the released number; an open kind: its report object). */
  readonly output: string | number | OpenReport;
  /** 32 lower-case hex digits from crypto.getRandomValues: a retried post is counted once. */
  readonly report_id: string;
}

export interface SendReportsOptions {
  /** Further attempts after a network error, HTTP 408, 429 or 5xx (default 3), with the same report ids. */
  retries?: number;
  /** The first wait between attempts in ms, doubled each time (default 250). */
  backoffMs?: number;
  /** Aborts the post and its retries: PrivliftError `network`, with the abort reason as `cause`. */
  signal?: AbortSignalLike;
  /** The fetch to use (default globalThis.fetch). */
  fetch?(input: string | UrlLike | RequestLike, init?: object): Promise<{ status: number; json(): Promise<unknown> }>;
}

/**
 * Posts reports to a collector's `POST /v1/reports`; resolves to its 202 `{accepted,
 * duplicates}`. Throws PrivliftError `invalid_argument`, `http` (a refused batch: `status`,
 * `serverCode`), `network` (every attempt failed, or `options.signal` aborted them: the
 * abort reason is the error's `cause`).
 */
export function sendReports(
  url: string | UrlLike,
  reports: readonly ReportEnvelope[] | OpenReportBatch,
  options?: SendReportsOptions,
): Promise<{ accepted: number; duplicates: number }>;

/**
 * Sends `pending()`'s reports with navigator.sendBeacon when the page is hidden; returns a
 * function that stops listening.
 */
export function beaconOnPageHide(
  url: string | UrlLike,
  pending: () => readonly ReportEnvelope[] | OpenReportBatch,
  options?: {
    target?: { addEventListener(t: string, f: () => void): void; removeEventListener(t: string, f: () => void): void };
    /** Sends the batch (default navigator.sendBeacon); `data` is a `Blob`. */
    beacon?(url: string, data: unknown): boolean;
  },
): () => void;

/**
 * Downloads, parses and verifies a mechanism document on the calling thread. Throws
 * PrivliftError with `network`, `http`, a parse code, `no_claims`, `claim_violated`,
 * `policy_violated`, `too_costly`, or `needs_async` for a document that costs more than
 * the calling thread verifies (about 50 ms): call verifyAsync with the error's `document`,
 * the bytes downloaded.
 */
export function fetchMechanism(
  url: FetchInput,
  policy?: Policy,
  fetchOptions?: FetchOptions,
): Promise<Mechanism>;

/**
 * A parsed and validated mechanism document whose claims are NOT yet verified (not named
 * `Document`, which would hide the DOM's type in every file importing it).
 */
export class MechanismDocument {
  private constructor();
  readonly id: string;
  /** SHA-256 (lower-case hex) of the document's bytes as parsed. */
  readonly sha256: string;
  readonly kind: MechanismKind;
  readonly description: string | undefined;
  readonly labels: string[];
  readonly outputLabels: string[];
  readonly secretLabels: string[];
  readonly prior: number[];
  readonly claims: Claims;
  /** The audit (w.r.t. S) of the exact sampler a client runs. `alphaOrder` defaults to 2. */
  audit(alphaOrder?: number): Leakage;
  /** Every claim and policy check, without throwing on a failed check. */
  check(policy?: Policy): Verification;
  /**
   * Verifies claims and policy on the calling thread; throws `no_claims`, `claim_violated`,
   * `policy_violated`, `invalid_argument`, `too_costly`, and `needs_async` for a document
   * that costs more than the calling thread verifies (about 50 ms): use verifyAsync.
   */
  verify(policy?: Policy): Mechanism;
  /** Releases the wasm memory now (otherwise the garbage collector does). */
  /**
   * Releases the wasm memory now (otherwise the garbage collector does it). Afterwards every
   * method throws PrivliftError `invalid_state`; a second free() does nothing.
   */
  free(): void;
  /** free(), for `using` declarations (TypeScript 5.2+, lib esnext.disposable). */
  [Symbol.dispose](): void;
  /** A summary (id, kind, sha256, sizes or domain, claims; `{freed: true}` after free()); also what console.log shows in Node. */
  toJSON(): Record<string, unknown>;
}

/** A verified mechanism; perturbs with crypto.getRandomValues. */
export class Mechanism {
  private constructor();
  readonly id: string;
  /** SHA-256 (lower-case hex) of the verified document's bytes. */
  readonly sha256: string;
  /**
   * The report envelope for a released output (an output index or label; for unary
   * encoding the bits from perturbBits): the output label (or '0'/'1' string) and a fresh
   * random 128-bit `report_id`. Never the user's value. Throws `unknown_output`.
   */
  report(y: number | string | Uint8Array | ArrayLike<number | boolean>): ReportEnvelope;
  /** `unary` mechanisms release bit vectors: use perturbBits / receiptBits. */
  readonly kind: MechanismKind;
  /** Input alphabet X. */
  readonly labels: readonly string[];
  /** Output alphabet Y. */
  readonly outputLabels: readonly string[];
  /** Secret alphabet S (= labels when the document declares no secret). */
  readonly secretLabels: readonly string[];
  /** The prior P_X the document declares. */
  readonly prior: number[];
  /** Input index of a label (or decimal index string) or a checked index. */
  inputIndex(x: Value): number;
  /**
   * Perturbs the user's value, given as its label; returns the released output's label.
   * Throws `unknown_value` for a string that is no input label, `invalid_argument` for a
   * number (an index goes to `perturbIndex`).
   */
  perturb(label: string): string;
  /** Perturbs the input at index `i`; returns the output index. Never reads `i` as a label. */
  perturbIndex(i: number): number;
  /**
   * Perturbs many inputs given by index; returns the output indices in a new array of the
   * narrowest width that holds every output index of this document ({@link OutputIndices}).
   * A label is refused.
   */
  perturbIndices(indices: Uint32Array | readonly number[] | Iterable<number>): OutputIndices;
  /**
   * Replaces each input index by its output index in the caller's array, and returns that
   * array: no allocation. On an error (an invalid input, a failing random source) it is
   * zeroed: it holds no report to send, nor the user's input.
   */
  perturbIndicesInPlace(indices: Uint32Array): Uint32Array;
  /**
   * DETERMINISTIC perturbation from `seed`: for tests and simulations only. Anyone who
   * knows the seed knows the noise.
   */
  perturbIndicesSeededForTesting(indices: Uint32Array | readonly number[] | Iterable<number>, seed: bigint | number): OutputIndices;
  /** The receipt for a released output, by output index or output label. */
  receipt(y: number | string): Receipt;
  /** Unary encoding: the perturbed bit vector, one 0/1 byte per input label. */
  perturbBits(x: Value): Uint8Array;
  /** DETERMINISTIC perturbBits from `seed`: for tests and simulations only. */
  perturbBitsSeededForTesting(x: Value, seed: bigint | number): Uint8Array;
  /** Unary encoding: the receipt for a released bit vector. */
  receiptBits(bits: Uint8Array | readonly (0 | 1 | boolean)[]): Receipt;
  /** The audited leakage of the sampler that runs, w.r.t. the document's secret S. */
  leakage(): Leakage;
  /** The audited leakage w.r.t. the user's value X under the declared prior (what the policy reads). */
  leakageX(): Leakage;
  /** `[min, max]`: the lift bounds every receipt of this mechanism states for X. */
  receiptBounds(): [number, number];
  /** LIP w.r.t. X (nats) under every prior: min(LDP_X, 2ε, ln((e^ε − 1 + Pmin)/Pmin)) (eq 12 without η). */
  lipUnderAnyPrior(): number;
  /** The full verification report. */
  verification(): Verification;
  /** Releases the wasm memory now (otherwise the garbage collector does). */
  /**
   * Releases the wasm memory now (otherwise the garbage collector does it). Afterwards every
   * method throws PrivliftError `invalid_state`; a second free() does nothing.
   */
  free(): void;
  /** free(), for `using` declarations (TypeScript 5.2+, lib esnext.disposable). */
  [Symbol.dispose](): void;
  /** A summary (id, kind, sha256, sizes or domain, claims; `{freed: true}` after free()); also what console.log shows in Node. */
  toJSON(): Record<string, unknown>;
}

/** The options of verifyAsync and verifyContinuousAsync: see OffThreadOptions. */
export type { OffThreadOptions as VerifyOptions } from './offthread.js';

/**
 * Parses and verifies a document against `policy` in the package's Worker (Node's
 * worker_threads; the calling thread where there are no workers, as in Cloudflare
 * workerd), so that neither blocks the page or the event loop, whatever it costs within
 * the budget: the call for a document whose size is not known in advance, and for any
 * that `verify()` refuses as `needs_async`. The mechanism stays in that Worker; its
 * methods answer by promise. Throws (rejects with) what parseMechanism and verify throw,
 * with the same codes; an `AbortError` when `options.signal` aborts (the Worker is
 * terminated). Progress: 0 at the start, 1 at the end.
 */
export function verifyAsync(
  document: DocumentInput,
  policy?: Policy,
  options?: import('./offthread.js').OffThreadOptions,
): Promise<AsyncMechanism>;

/**
 * A verified mechanism that lives in the package's Worker (verifyAsync): Mechanism's
 * methods, each answering by promise (about 0.1 ms a call); what never changes is read at
 * once. Perturbs with crypto.getRandomValues of that Worker's thread.
 */
export class AsyncMechanism {
  private constructor();
  readonly id: string;
  /** SHA-256 (lower-case hex) of the verified document's bytes. */
  readonly sha256: string;
  readonly kind: MechanismKind;
  readonly labels: readonly string[];
  readonly outputLabels: readonly string[];
  readonly secretLabels: readonly string[];
  readonly prior: readonly number[];
  report(y: number | string | Uint8Array | ArrayLike<number | boolean>): Promise<ReportEnvelope>;
  inputIndex(x: Value): Promise<number>;
  perturb(label: string): Promise<string>;
  perturbIndex(i: number): Promise<number>;
  perturbIndices(indices: Uint32Array | readonly number[] | Iterable<number>): Promise<OutputIndices>;
  /** DETERMINISTIC perturbation from `seed`: for tests and simulations only. */
  perturbIndicesSeededForTesting(indices: Uint32Array | readonly number[] | Iterable<number>, seed: bigint | number): Promise<OutputIndices>;
  receipt(y: number | string): Promise<Receipt>;
  perturbBits(x: Value): Promise<Uint8Array>;
  /** DETERMINISTIC perturbBits from `seed`: for tests and simulations only. */
  perturbBitsSeededForTesting(x: Value, seed: bigint | number): Promise<Uint8Array>;
  receiptBits(bits: Uint8Array | readonly (0 | 1 | boolean)[]): Promise<Receipt>;
  leakage(): Promise<Leakage>;
  leakageX(): Promise<Leakage>;
  receiptBounds(): Promise<[number, number]>;
  lipUnderAnyPrior(): Promise<number>;
  verification(): Promise<Verification>;
  /**
   * Releases its memory in the Worker (which is kept idle for the next verifyAsync).
   * Afterwards every method rejects with PrivliftError `invalid_state`; a second free()
   * does nothing.
   */
  free(): void;
  /** free(), for `using` declarations (TypeScript 5.2+, lib esnext.disposable). */
  [Symbol.dispose](): void;
  /** A summary (id, kind, sha256, sizes, `offThread: true`; `{freed: true}` after free()). */
  toJSON(): Record<string, unknown>;
}
