// Shared by the browser benchmarks (benches/browser/bench.mjs, benches/perturb-many/chromium.mjs):
// one page in a fresh headless Chromium (Debian's /usr/bin/chromium through playwright-core)
// until it publishes `window.__bench`.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Loads `url` in a fresh browser profile, waits (up to 10 min) for the page's
 * `window.__bench`, and returns it with the browser's version, and the text of the page's
 * `#out` element. Page errors and console errors are printed and set a failing exit code.
 */
export async function benchPage(url) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'pw-bench-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => { console.error('[pageerror]', e); process.exitCode = 1; });
    page.on('console', (m) => { if (m.type() === 'error') console.error('[console]', m.text()); });
    await page.goto(url);
    await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 600_000, polling: 500 });
    const results = await page.evaluate(() => window.__bench);
    results.browser = context.browser()?.version() ?? null;
    const out = await page.evaluate(() => document.getElementById('out')?.textContent ?? '');
    return { results, out };
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
