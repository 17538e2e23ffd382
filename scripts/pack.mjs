// Stages the npm package and packs it (`npm run package` builds the wasm modules first):
//
//   node scripts/pack.mjs [--out DIR]   → DIR/privlift/ (staged) and DIR/privlift-VERSION.tgz
//                                          (default DIR: target/npm); prints the tarball's path
//   node scripts/pack.mjs --refuse      → fails, explaining the above (`prepublishOnly`)
//
// The package is the files of package.json's "files", package.json itself without "scripts"
// and "devDependencies", and js/README.md as its README: the registry page shows the package's
// README, which must be the JS guide with absolute links, not the repository's README.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  console.error(`pack: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.includes('--refuse')) {
  fail('publish the staged package, not the repository: `npm run package`, then '
    + '`npm publish target/npm/privlift-VERSION.tgz` (its README is js/README.md)');
}
const at = args.indexOf('--out');
if (at >= 0 && !args[at + 1]) fail('--out needs a directory');
const out = at >= 0 ? resolve(args[at + 1]) : join(root, 'target', 'npm');

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const stage = join(out, pkg.name);
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const file of pkg.files) {
  const from = join(root, file);
  if (!existsSync(from)) fail(`${file} (package.json "files") is missing: run bash scripts/build-wasm.sh`);
  mkdirSync(dirname(join(stage, file)), { recursive: true });
  cpSync(from, join(stage, file));
}
cpSync(join(root, 'js', 'README.md'), join(stage, 'README.md'));
const { scripts: _scripts, devDependencies: _dev, ...published } = pkg;
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);

const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
  cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'],
}));
console.log(join(out, info.filename));
