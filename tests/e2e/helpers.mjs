// What the end-to-end tests share, whatever drives the browser (playwright-core in
// demo.test.mjs, W3C WebDriver in webkit.test.mjs).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

/** The curator CLI the tests run: PRIVLIFT_CLI (scripts/test.sh: its native tests' build), else the release build. */
export const cli = process.env.PRIVLIFT_CLI ? resolve(root, process.env.PRIVLIFT_CLI) : join(root, 'target/release/privlift');

/**
 * The curator's side of the staged `site`, as scripts/demo.sh runs it: a synthetic population
 * of 20,000 users (seed 1, its truth in mechanisms/truth.json; the open-domain documents' users
 * answer from population.json) in the SQLite database `db`,
 * the collector on it, `site/collector.json` naming that collector, and `privlift serve` of
 * `site`. Resolves to the page's base URL, the collector's URL and a `stop()`.
 */
export async function startCurator(site, db) {
  const mechanisms = join(site, 'mechanisms');
  execFileSync(cli, ['simulate', '--db', db, '--dir', mechanisms, '--users', '20000', '--seed', '1',
    '--population', join(site, 'population.json'), '--truth', join(mechanisms, 'truth.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const collector = spawn(cli, ['collect', '--db', db, '--dir', mechanisms, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let server;
  const stop = () => {
    server?.kill();
    collector.kill('SIGKILL');
  };
  try {
    const collectorUrl = await firstLine(collector, /listening on (http:\/\/\S+)/, 'collector');
    writeFileSync(join(site, 'collector.json'), JSON.stringify({ collector: collectorUrl }));
    server = spawn(cli, ['serve', '--dir', site, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const base = await firstLine(server, /(http:\/\/127\.0\.0\.1:\d+\/)/, 'server');
    return { base, collectorUrl, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/** Resolves to the first match of `re` on the process's stdout (a server's address line). */
export function firstLine(proc, re, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(re);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (c) => reject(new Error(`${what} exited ${c}`)));
    setTimeout(() => reject(new Error(`${what} did not start: ${out}`)), 10000);
  });
}

/** Equal up to floating-point rounding (native libm vs wasm), or both the same infinity. */
export function close(a, b, what) {
  assert.ok(a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b)), `${what}: ${a} vs ${b}`);
}
