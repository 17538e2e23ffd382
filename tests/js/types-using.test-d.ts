// Type test: `using` declarations (TypeScript 5.2+, lib esnext.disposable) free the wasm
// memory of documents and mechanisms at the end of the scope.
import { parseMechanism, type Mechanism } from 'privlift';
import { parseContinuousMechanism } from 'privlift/continuous';

export async function scoped(text: string): Promise<[string, number]> {
  using doc = await parseMechanism(text);
  using m: Mechanism = doc.verify();
  using c = await parseContinuousMechanism(text);
  using cm = c.verify();
  return [m.perturb('yes'), cm.perturb(1)];
}
