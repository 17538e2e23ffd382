// perturbMany against the keep-or-uniform JS loop and the getRandomValues byte rate, in
// Node, CPU time (process.cpuUsage), every contender alternated in one run
// (workload.mjs). Run after scripts/build-wasm.sh:
//
//   node benches/perturb-many/node.mjs [--n N] [--rounds R] [--ks 2,21,256] [--compare DIR ...]
//
// --compare DIR adds the perturbMany of another checkout's package (DIR/js/privlift.js over
// DIR/pkg/, e.g. a worktree of the previous commit), measured in the same rounds: the
// before/after of a change in one run. Prints a table, then the rows as JSON.
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from './workload.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const compare = argv.flatMap((a, i) => (a === '--compare' ? [argv[i + 1]] : []));

const packages = { perturbMany: new URL('../../js/privlift.js', import.meta.url).href };
for (const dir of compare) packages[`perturbMany@${dir.split('/').filter(Boolean).pop()}`] = pathToFileURL(resolve(dir, 'js/privlift.js')).href;
const mechanisms = {};
for (const [label, url] of Object.entries(packages)) {
  const lib = await import(url);
  mechanisms[label] = async (doc) => (await lib.parseMechanism(doc)).verify();
}
const clock = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
console.log(`${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, CPU time`);
const rows = await run(mechanisms, {
  ks: opt('ks', '2,21,256').split(',').map(Number), n: Number(opt('n', 1_000_000)), rounds: Number(opt('rounds', 9)),
  clock, log: (s) => console.log(s),
});
console.log(JSON.stringify(rows));
