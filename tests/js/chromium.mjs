// Shared by the tests that run the package in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core, which downloads no browser): the browser, whether it is here,
// a server on 127.0.0.1 for the package's own files and the test's pages, one run of a page
// up to the result it publishes, and the page-side probe of the page's thread.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
export const CHROMIUM = process.env.PRIVLIFT_CHROMIUM || '/usr/bin/chromium';
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };

let found = null;
try {
  if (existsSync(CHROMIUM)) ({ chromium: found } = await import('playwright-core'));
} catch {
  found = null;
}
/** playwright-core's chromium, or null. */
export const chromium = found;
/** The `skip` option of a test that needs Chromium: false, or why it is skipped. */
export const skip = chromium === null ? `needs ${CHROMIUM} and playwright-core (npm ci)` : false;

/** Runs `body(page, errors)` in a fresh headless Chromium; `errors` collects page errors and console errors. */
export async function inPage(body) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await body(page, errors);
  } finally {
    await browser.close();
  }
}

/**
 * Serves `pages` (path → [content type, body]) and the package's files under `dirs`
 * (e.g. ['js', 'pkg']), logging every path in `requests`; resolves to the server and its
 * base URL.
 */
export async function servePackage(pages, dirs, requests) {
  const files = new RegExp(`^/(${dirs.join('|')})/[\\w.-]+$`);
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    requests.push(path);
    const page = pages[path];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': TYPES[page[0]] }).end(page[1]);
      return;
    }
    try {
      if (!files.test(path)) throw new Error('not a file of the package');
      const body = await readFile(new URL('.' + path, ROOT));
      res.writeHead(200, { 'content-type': TYPES[path.slice(path.lastIndexOf('.'))] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

/**
 * Serves `pages` and the package's `dirs` (as `servePackage`) to the tests of the calling
 * file, from its `before` hook to its `after` hook. Returns the site: `base` (set once the
 * server listens) and `requests`, every path asked for, in order.
 */
export function servedSite(pages, dirs) {
  const site = { base: null, requests: [], server: null };
  before(async () => {
    if (!skip) Object.assign(site, await servePackage(pages, dirs, site.requests));
  });
  after(() => (site.server ? new Promise((resolve) => site.server.close(resolve)) : undefined));
  return site;
}

/**
 * Opens `path` of `site` in a fresh Chromium, waits up to `timeout` ms for the page to set
 * `window[name]` and returns that value. A page error or console error fails the test; a
 * page that never answers fails it naming the page's errors and the requests it made.
 */
export async function pageResult(site, path, name, timeout = 30_000) {
  let result;
  await inPage(async (page, errors) => {
    await page.goto(`${site.base}${path}`);
    await page.waitForFunction((n) => window[n], name, { timeout }).catch((e) => {
      throw new Error(`${e.message}; page errors: ${errors.join('; ')}; requests: ${site.requests.join(' ')}`);
    });
    result = await page.evaluate((n) => window[n], name);
    assert.deepEqual(errors, []);
  });
  return result;
}

/** How many times the page asked `site` for `path`. */
export const requestsOf = (site, path) => site.requests.filter((p) => p === path).length;

/**
 * Script for a test page (inside its `<script type="module">`): `sleep(ms)`, and
 * `probed(fn)`, which runs fn() and resolves to `{value, worstMs, long}`: the page's tasks
 * longer than 50 ms while it ran (the Long Tasks API: a task's own time, which a busy
 * machine rarely inflates, unlike the gaps between tasks) and the longest gap between two
 * turns of a 5 ms setInterval probe; and `probedQuiet(fn, discard)`, `probed` up to three
 * times until a run has no long task (`discard` frees the value of a run not kept),
 * resolving to the last run and `attempts`, each run's `long`.
 */
export const PAGE_PROBE = `
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // While fn() runs: the tasks of the page's thread longer than 50 ms (the Long Tasks API:
  // a task's own time, which a busy machine rarely inflates, unlike the gaps between
  // tasks) and the longest gap between two turns of a 5 ms setInterval probe.
  async function probed(fn) {
    const long = [];
    const observer = new PerformanceObserver((list) => long.push(...list.getEntries().map((e) => Math.round(e.duration))));
    observer.observe({ type: 'longtask' });
    let last = performance.now(), worst = 0;
    const probe = setInterval(() => { const now = performance.now(); worst = Math.max(worst, now - last); last = now; }, 5);
    try {
      const value = await fn();
      await sleep(50);
      long.push(...observer.takeRecords().map((e) => Math.round(e.duration)));
      return { value, worstMs: worst, long };
    } finally { clearInterval(probe); observer.disconnect(); }
  }
  // Up to 3 attempts, so that a task the machine's own load stretched past 50 ms once is
  // not taken for the package's: work on the page's thread would stretch every one.
  async function probedQuiet(fn, discard = () => {}) {
    const attempts = [];
    let run;
    for (let k = 0; k < 3 && !(run && run.long.length === 0); k++) {
      if (run) discard(run.value);
      run = await probed(fn);
      attempts.push(run.long);
    }
    return { ...run, attempts };
  }
`;
