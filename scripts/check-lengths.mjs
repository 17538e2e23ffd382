#!/usr/bin/env node
// Lengths the repository keeps: no source file over 800 lines (a file that long holds more
// than one job), and BENCHMARKS.md at most 400 (the current figures only; how a figure
// moved lives in git). Reads the files git tracks; exits 1 naming each file over its limit.
//
// Usage: node scripts/check-lengths.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const SOURCE = /\.(rs|js|mjs|cjs|ts|sh|py|html|css)$/;
const LIMITS = [
  [(f) => f === 'BENCHMARKS.md', 400, 'the current figures only; history lives in git'],
  [(f) => SOURCE.test(f), 800, 'a source file that long holds more than one job'],
];

const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
let bad = 0;
for (const f of files) {
  const rule = LIMITS.find(([applies]) => applies(f));
  if (!rule) continue;
  const lines = readFileSync(f, 'utf8').split('\n').length - 1;
  if (lines > rule[1]) {
    console.error(`${f}: ${lines} lines, over ${rule[1]} (${rule[2]})`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
