#!/usr/bin/env node
// Lists every float literal below 1e-6 (a tolerance, a margin, a floor) in the code of the
// core (src/) and the curator (design/src/) outside a `const` or `static` item, and fails
// if there is one: such a number decides something (a pivot is singular, a step is
// degenerate, a design keeps its margin), so it is a named constant whose doc comment says
// what it bounds and why that size, written once and shared by every place that uses the
// same fact. Comments, strings and code compiled for tests only (`#[cfg(test)]` items and
// the files of `#[cfg(test)] mod x;`) are skipped: tests keep their literal assertion
// tolerances. It first checks itself on the fixture tests/tolerances/ (its `expect.txt`
// the findings, in order), so a checker that finds nothing fails too. Usage:
//   node scripts/check-tolerances.mjs [DIR…]      (default: src design/src)
import { readFileSync } from 'node:fs';
import { blank, checkFixture, compiled, rsFiles } from './rust-source.mjs';

/** Literals below this are tolerances; 1e-6 itself and above are left to review. */
const BELOW = 1e-6;

/** A numeric literal (a prefixed integer first, so that `0x1e` is not read as 1e…). */
const NUMBER = /\b0[xob][0-9a-fA-F_]+|\b\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d[\d_]*)?(?:_?f(?:32|64))?/g;

/** The value of a literal NUMBER matched, or 0 for a prefixed integer. */
function value(literal) {
  if (/^0[xob]/.test(literal)) return 0;
  return Number(literal.replace(/_?f(?:32|64)$/, '').replace(/_/g, ''));
}

/** `s` with every `const` and `static` item blanked, up to its `;` (line breaks kept). */
function dropConstItems(s) {
  let out = s;
  for (const m of s.matchAll(/\b(?:const|static)\s+(?:mut\s+)?\w+\s*:/g)) {
    let depth = 0, j = m.index + m[0].length;
    for (; j < s.length && !(s[j] === ';' && depth === 0); j++) {
      if ('([{'.includes(s[j])) depth++;
      else if (')]}'.includes(s[j])) depth--;
    }
    out = out.slice(0, m.index) + blank(out.slice(m.index, j)) + out.slice(j);
  }
  return out;
}

/** Every literal below BELOW in the code of `sources` (a Map from path to Rust text), as lines. */
function scan(sources) {
  const found = [];
  for (const [file, s] of compiled(sources)) {
    dropConstItems(s).split('\n').forEach((line, i) => {
      for (const m of line.matchAll(NUMBER)) {
        const v = value(m[0]);
        if (v > 0 && v < BELOW) found.push(`${file}:${i + 1}: ${m[0]}`);
      }
    });
  }
  return found;
}

checkFixture('check-tolerances', 'tests/tolerances', scan);
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'design/src'];
const files = roots.flatMap(rsFiles).sort();
const found = scan(new Map(files.map((f) => [f, readFileSync(f, 'utf8')])));
if (found.length) {
  console.error(`${found.length} float literal(s) below ${BELOW.toExponential()} in code; name each as a const saying what it bounds and why that size:`);
  for (const f of found) console.error(`  ${f}`);
  process.exit(1);
}
console.log(`check-tolerances: no float literal below ${BELOW.toExponential()} outside a const in ${roots.join(', ')} (${files.length} files)`);
