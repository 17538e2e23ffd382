// Type test: the package's types under `lib: ["es2022"]` + @types/node only (no `dom`, no
// esnext.disposable), the setting of a Node project. Every public entry point is
// imported and its init() called with what Node has (a file URL, bytes).
import { init, parseMechanism, type InitInput } from 'privlift';
import { init as initDesign } from 'privlift/design';
import { init as initContinuous } from 'privlift/continuous';
import { openLedger } from 'privlift/ledger';
import { readFile } from 'node:fs/promises';

export async function node(): Promise<void> {
  const url = new URL('./privlift_bg.wasm', import.meta.url);
  await init(url);
  const bytes: Uint8Array = await readFile(url);
  const input: InitInput = bytes;
  await init(input);
  await initDesign(bytes.buffer);
  await initContinuous('https://example.invalid/privlift_continuous_bg.wasm');
  const doc = await parseMechanism(await readFile(new URL('./m.json', import.meta.url), 'utf8'));
  const m = doc.verify();
  m[Symbol.dispose]();
  await openLedger({ storage: 'memory' });
}
