// Type test: the package's types under `lib: ["es2022"]` alone (no `dom`, no @types/node,
// no webworker lib): what they say of themselves, that they name no type of those libs
// (RequestInit, AbortSignal, URL, Blob, Request, Response, WebAssembly, BufferSource).
// Every public entry point is imported and used.
import { init, parseMechanism, fetchMechanism, sendReports, beaconOnPageHide, type FetchOptions } from 'privlift';
import { init as initDesign } from 'privlift/design';
import { init as initContinuous, fetchContinuousMechanism } from 'privlift/continuous';
import { openLedger } from 'privlift/ledger';
import * as inline from 'privlift/inline';

export async function noDom(bytes: Uint8Array): Promise<void> {
  await init(bytes);
  await initDesign(bytes);
  await initContinuous('https://example.invalid/privlift_continuous_bg.wasm');
  await inline.init();
  const options: FetchOptions = { maxBytes: 1 << 20, method: 'GET', headers: { accept: 'application/json' } };
  const m = await fetchMechanism('https://example.invalid/m.json', { maxLdpX: 1 }, options);
  await fetchContinuousMechanism('https://example.invalid/c.json', undefined, { maxBytes: 1 << 20 });
  const doc = await parseMechanism('{}');
  doc.free();
  await sendReports('https://example.invalid/v1/reports', [m.report(0)], { retries: 1 });
  beaconOnPageHide('https://example.invalid/v1/reports', () => []);
  await openLedger({ storage: 'memory' });
}
