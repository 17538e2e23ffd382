// The sample documents of examples/ (linked from both READMEs): each is listed and linked in
// examples/README.md, every link there names a file of the repository, and each document
// is what it says: it parses and verifies with the package under its own claims. (That
// they are the bytes the demo's curator designs is checked by tests/e2e, which runs the CLI.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseMechanism, verifyAsync } from 'privlift';
import { CONTINUOUS_KINDS, parseContinuousMechanism, verifyContinuousAsync } from 'privlift/continuous';

const EXAMPLES = new URL('../../examples/', import.meta.url);
const readme = readFileSync(new URL('README.md', EXAMPLES), 'utf8');
const links = [...readme.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]);
const documents = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).sort();

test('examples/README.md links files that exist, and every document of examples/', () => {
  assert.ok(documents.length >= 3, `expected sample documents in examples/, found ${documents.length}`);
  for (const link of links) assert.ok(existsSync(new URL(link, EXAMPLES)), `a dead link in examples/README.md: ${link}`);
  for (const file of documents) assert.ok(links.includes(file), `${file} is not listed in examples/README.md`);
});

test('the READMEs link examples/', () => {
  assert.match(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'), /\]\(examples\/README\.md\)/);
  assert.match(readFileSync(new URL('../../js/README.md', import.meta.url), 'utf8'), /github\.com\/privlift\/privlift\/tree\/main\/examples/);
});

for (const file of documents) {
  test(`${file} parses and verifies under its own claims; its id is its name`, async () => {
    const text = readFileSync(new URL(file, EXAMPLES), 'utf8');
    const continuous = CONTINUOUS_KINDS.includes(JSON.parse(text).mechanism.kind);
    const doc = continuous ? await parseContinuousMechanism(text) : await parseMechanism(text);
    // The salary document (226 points) costs more than verify() runs on the calling thread.
    const m = await (continuous ? verifyContinuousAsync : verifyAsync)(text);
    assert.equal(m.id, file.replace(/\.json$/, ''));
    m.free();
    doc.free();
  });
}
