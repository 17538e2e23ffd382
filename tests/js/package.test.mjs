// The npm package as it is published (`node --test tests/js/` after scripts/build-wasm.sh):
// scripts/pack.mjs stages and packs it; the tarball holds exactly package.json's "files", its
// README is the JS guide (js/README.md) with no relative links or images, its metadata agrees
// with the crates', and it installs into an empty project and works there by its public name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

let dir;
let tarball;
let listed;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'privlift-pack-'));
  tarball = execFileSync(process.execPath, [join(ROOT, 'scripts/pack.mjs'), '--out', dir], { encoding: 'utf8' }).trim();
  listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  const packed = statSync(tarball).size;
  const unpacked = listed.reduce((sum, f) => sum + statSync(join(dir, pkg.name, f)).size, 0);
  console.log(`# npm tarball: ${packed} B packed, ${unpacked} B unpacked, ${listed.length} files`);
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** A file of the tarball, as text. */
const packedText = (file) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' });

test('the tarball holds exactly the listed files, the licences and the JS README', () => {
  const expected = [...pkg.files, 'README.md', 'package.json'].sort();
  assert.deepEqual([...listed].sort(), expected);
  assert.ok(listed.includes('LICENSE-MIT') && listed.includes('LICENSE-APACHE'));
  for (const [entry, target] of Object.entries(pkg.exports)) {
    for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
      assert.ok(listed.includes(file.replace(/^\.\//, '')), `export ${entry} → ${file} is not in the tarball`);
    }
  }
});

test('its README is the JS guide, with absolute links and no images', () => {
  const readme = packedText('README.md');
  assert.equal(readme, readFileSync(join(ROOT, 'js/README.md'), 'utf8'));
  assert.doesNotMatch(readme, /!\[/, 'no images: a registry page cannot show a relative one');
  for (const [, target] of readme.matchAll(/\]\(([^)]*)\)/g)) {
    assert.match(target, /^https:\/\//, `relative link "${target}" breaks on the registry page`);
  }
  assert.match(readme, /npm install privlift/);
  assert.doesNotMatch(readme, /cargo |scripts\//, 'the Rust and CLI material stays in the repository README');
});

test('its metadata agrees with the crates and it has no scripts or dev dependencies', () => {
  const published = JSON.parse(packedText('package.json'));
  assert.equal(published.scripts, undefined, 'no install or build scripts run on the user machine');
  assert.equal(published.devDependencies, undefined);
  assert.equal(published.dependencies, undefined, 'no dependencies');
  const cargo = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const field = (name) => cargo.match(new RegExp(`\\[workspace\\.package\\][^[]*?\\n${name} = "([^"]+)"`))?.[1];
  const repository = field('repository');
  assert.ok(repository, 'Cargo.toml [workspace.package] repository');
  assert.equal(published.repository.url, `git+${repository}.git`);
  assert.equal(published.homepage, field('homepage'));
  assert.equal(published.bugs.url, `${repository}/issues`);
  assert.equal(published.license, cargo.match(/\nlicense = "([^"]+)"/)[1]);
  assert.equal(published.version, cargo.match(/\nversion = "([^"]+)"/)[1], 'the npm and crate versions move together');
  assert.ok(packedText('README.md').includes(repository), 'the README links to the repository');
});

test('installed into an empty project, it verifies and perturbs by its public name (main and inline entries)', () => {
  const project = join(dir, 'app');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
    { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  const doc = join(ROOT, 'www/mechanisms/age-krr.json');
  const script = `
    import { readFile } from 'node:fs/promises';
    import { parseMechanism } from 'privlift';
    import * as inline from 'privlift/inline';
    import { openLedger } from 'privlift/ledger';
    import { CONTINUOUS_KINDS } from 'privlift/continuous';
    import { designMethods, design } from 'privlift/design';
    const bytes = await readFile(${JSON.stringify(doc)});
    const m = (await parseMechanism(bytes)).verify({ maxLdpX: 1 });
    const n = (await inline.parseMechanism(bytes)).verify({ maxLdpX: 1 });
    const y = m.perturbIndex(0);
    const ledger = await openLedger({ storage: 'memory' });
    console.log(JSON.stringify({ id: m.id, inline: n.id, y, outputs: m.outputLabels.length,
      ledger: typeof ledger.release, continuous: CONTINUOUS_KINDS.length, design: (await designMethods()).length,
      designed: JSON.parse(await design('krr', { prior: { p: [0.5, 0.5] }, epsilon: 1 })).id }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' }));
  assert.equal(out.id, 'age-krr-eps1');
  assert.equal(out.inline, out.id);
  assert.ok(Number.isInteger(out.y) && out.y >= 0 && out.y < out.outputs, JSON.stringify(out));
  assert.equal(out.ledger, 'function');
  assert.ok(out.continuous > 0 && out.design > 0, JSON.stringify(out));
  assert.equal(out.designed, 'krr-eps1', 'the designers run in the installed package\'s worker');
});
