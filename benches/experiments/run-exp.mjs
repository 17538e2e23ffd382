import { chromium } from 'playwright-core';
// Usage: node benches/experiments/run-exp.mjs "http://127.0.0.1:PORT/exp.html?pkg=pkg" (see README.md)
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'pw-')), { executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const page = await ctx.newPage();
page.on('pageerror', async (e) => { console.error('[pageerror]', e); await ctx.close(); process.exit(1); });
await page.goto(process.argv[2]);
await page.waitForFunction(() => window.__exp !== undefined, null, { timeout: 900000, polling: 500 });
console.log(JSON.stringify(await page.evaluate(() => window.__exp), null, 1));
await ctx.close();
