// With the older `moduleResolution: node`, which ignores "exports": the subpaths resolve
// through "typesVersions" in package.json (scripts/test-wasm.sh installs the package under
// target/types-node10/node_modules and runs tsc there).
import type { Mechanism } from 'privlift';
import type { DesignMethod } from 'privlift/design';
import type { ContinuousMechanism } from 'privlift/continuous';
import type { Ledger } from 'privlift/ledger';
import type { MechanismDocument } from 'privlift/inline';

export type Resolved = [Mechanism, DesignMethod, ContinuousMechanism, Ledger, MechanismDocument];
