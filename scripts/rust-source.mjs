// Reading Rust sources as the lints need them (scripts/check-params.mjs,
// scripts/check-tolerances.mjs): comments and literals blanked, code compiled for tests
// only set aside. Text, not a parse: each function keeps lengths and line breaks, so that
// a position in the result is the same position in the source.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `s` with every character but its line breaks made a space. */
export const blank = (s) => s.replace(/[^\n]/g, ' ');

/** The text with comments, strings and char literals blanked (lengths kept). */
export function strip(src) {
  return src.replace(
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|b?r(#*)"[\s\S]*?"\1|b?"(?:\\[\s\S]|[^"\\])*"|b?'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'/g,
    blank,
  );
}

/** Index just past the bracket matching the opener at `i` (nesting of ( [ { < >). */
export function close(s, i) {
  const open = s[i];
  const shut = { '(': ')', '{': '}', '[': ']', '<': '>' }[open];
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === '-' && s[j + 1] === '>') { j++; continue; } // `->` inside `Fn(…) -> T`
    if (c === open) depth++;
    else if (c === shut && --depth === 0) return j + 1;
  }
  return s.length;
}

/** Files that a `#[cfg(test)] mod x;` in `file` declares, among `known`. */
export function testModFiles(file, text, known) {
  const dir = ['mod.rs', 'lib.rs', 'main.rs'].includes(basename(file)) ? dirname(file) : file.replace(/\.rs$/, '');
  const out = [];
  for (const m of text.matchAll(/#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/g)) {
    for (const f of [join(dir, `${m[1]}.rs`), join(dir, m[1], 'mod.rs')]) if (known.has(f)) out.push(f);
  }
  return out;
}

/** Blanks every item that follows `#[cfg(test)]` (its braces or up to its `;`), line breaks kept. */
export function dropTestItems(s) {
  let out = s;
  for (const m of s.matchAll(/#\[cfg\(test\)\]/g)) {
    let j = m.index + m[0].length;
    while (j < s.length && s[j] !== '{' && s[j] !== ';') j++;
    const end = s[j] === '{' ? close(s, j) : j + 1;
    out = out.slice(0, m.index) + blank(out.slice(m.index, end)) + out.slice(end);
  }
  return out;
}

/** The `.rs` files below `dir`. */
export function rsFiles(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? rsFiles(p) : n.endsWith('.rs') ? [p] : [];
  });
}

/**
 * The stripped text of each of `sources` (a Map from path to Rust text) that is not a
 * test module's file, with its `#[cfg(test)]` items blanked: the code a build compiles.
 */
export function compiled(sources) {
  const texts = new Map([...sources].map(([f, t]) => [f, strip(t)]));
  const skipped = new Set([...texts].flatMap(([f, t]) => testModFiles(f, t, texts)));
  return new Map([...texts].filter(([f]) => !skipped.has(f)).map(([f, t]) => [f, dropTestItems(t)]));
}

/**
 * A lint's check of itself: `scan` (sources as a Map from path to text → findings) run on
 * the fixture folder `folder` of the repository (its `.rs` files, by base name) must find
 * exactly what the folder's `expect.txt` lists, in order; otherwise exits 1 naming `lint`.
 */
export function checkFixture(lint, folder, scan) {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', folder);
  const files = rsFiles(dir).sort();
  const got = scan(new Map(files.map((f) => [basename(f), readFileSync(f, 'utf8')])));
  const want = readFileSync(join(dir, 'expect.txt'), 'utf8').split('\n').filter(Boolean);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    console.error(`${lint} fixture ${folder}/: found\n  ${got.join('\n  ')}\nexpected\n  ${want.join('\n  ')}`);
    process.exit(1);
  }
}
