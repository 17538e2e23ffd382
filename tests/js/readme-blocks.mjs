// The ```js / ```javascript blocks of the JS guide (js/README.md), for the two checks of
// its examples: tests/js/readme.test.mjs runs each one, and
// `node tests/js/readme-blocks.mjs DIR` writes each one to DIR as a TypeScript module,
// which scripts/test-wasm.sh compiles under the strictest settings a user may have
// (tests/js/tsconfig.readme.json: strict, noUncheckedIndexedAccess).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The JS guide's text. */
export const README = new URL('../../js/README.md', import.meta.url);

/** The ```js / ```javascript blocks of `markdown`, each with its key "heading #n". */
export function jsBlocks(markdown) {
  const blocks = [];
  let heading = '(before any heading)';
  let inHeading = 0;
  let open = null; // the fence of the block being read, or null
  let body = null;
  for (const line of markdown.split('\n')) {
    if (open !== null) {
      if (line.trimEnd() === open) {
        if (body !== null) {
          inHeading += 1;
          blocks.push({ key: `${heading} #${inHeading}`, code: body.join('\n') });
        }
        open = null;
        body = null;
      } else if (body !== null) {
        body.push(line);
      }
      continue;
    }
    const fence = line.match(/^(```+)\s*([\w-]*)/);
    if (fence) {
      open = fence[1];
      body = ['js', 'javascript', 'mjs'].includes(fence[2].toLowerCase()) ? [] : null;
      continue;
    }
    const h = line.match(/^#{1,6}\s+(.*?)\s*$/);
    if (h) {
      heading = h[1];
      inHeading = 0;
    }
  }
  if (open !== null) throw new Error('the README ends inside a code block');
  return blocks;
}

// As a script: every block of the JS guide as DIR/block-N.ts, a module of its own.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node tests/js/readme-blocks.mjs DIR');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const blocks = jsBlocks(readFileSync(README, 'utf8'));
  blocks.forEach(({ key, code }, i) => {
    writeFileSync(join(dir, `block-${i + 1}.ts`), `// js/README.md: ${key}\n${code}\nexport {};\n`);
  });
  console.log(`${blocks.length} blocks of js/README.md written to ${dir}`);
}
