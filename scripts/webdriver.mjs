// A small W3C WebDriver client (https://www.w3.org/TR/webdriver2/) over fetch, for the
// engine playwright-core cannot drive from Debian's packages: WebKitGTK, through Debian's
// `webkit2gtk-driver` (WebKitWebDriver, which starts MiniBrowser in automation mode).
// MiniBrowser has no headless mode: it draws on a virtual X display, an Xvfb started here.
//
//   const wk = await startWebKit();
//   await wk.navigate(url);
//   await wk.waitFor('return window.ready === true', [], { what: 'the page' });
//   await wk.click('#button');
//   const v = await wk.execute('return document.title');
//   await wk.close();
import { spawn } from 'node:child_process';
import { freePort } from './net.mjs';

/** The driver Debian's `webkit2gtk-driver` installs. */
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
/** Every HTTP command to the driver is abandoned after this long: a hung driver fails the test. */
const COMMAND_TIMEOUT_MS = 60_000;

/** A W3C WebDriver error response (`{value: {error, message}}`) as an Error. */
export class WebDriverError extends Error {
  constructor(command, error, message) {
    super(`${command}: ${error}: ${message}`);
    this.error = error;
  }
}

/** Starts Xvfb on the first free display; resolves to `{proc, display}` (`:N`). */
function startXvfb() {
  // -displayfd: Xvfb picks a free display and writes its number on fd 3 once it accepts clients.
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr.on('data', (d) => { err += d; });
    proc.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ proc, display: `:${out.trim()}` });
    });
    proc.once('error', (e) => reject(new Error(`Xvfb could not start (apt-get install xvfb): ${e.message}`)));
    proc.once('exit', (c) => reject(new Error(`Xvfb exited ${c} before it was ready: ${err.trim()}`)));
  });
}

/** Polls the driver's GET /status until it answers, for at most `ms`. */
async function waitReady(url, proc, ms) {
  const end = Date.now() + ms;
  let exited = null;
  proc.once('exit', (c) => { exited = c; });
  for (;;) {
    if (exited !== null) throw new Error(`WebKitWebDriver exited ${exited} before it was ready`);
    try {
      const r = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch { /* not listening yet */ }
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not answer on ${url} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One browser session: the W3C commands the tests use, and `close()` for every process started. */
export class Session {
  constructor(url, id, stop) {
    this.url = url;
    this.id = id;
    this.stop = stop;
    /** The new-session response's capabilities (`browserName`, `browserVersion`, …). */
    this.capabilities = null;
  }

  /** Sends one command (`POST /session/{id}/…`) and returns its `value`, or throws its W3C error. */
  async command(method, path, body) {
    const what = `${method} ${path}`;
    const r = await fetch(`${this.url}/session/${this.id}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(COMMAND_TIMEOUT_MS),
    });
    const json = await r.json();
    // A W3C error is a 4xx/5xx status; a 200's value is the page's, whatever its keys.
    if (!r.ok) throw new WebDriverError(what, json.value?.error ?? r.status, json.value?.message ?? '');
    return json.value;
  }

  /** Navigates the top-level browsing context to `url` and waits for its load. */
  navigate(url) { return this.command('POST', '/url', { url }); }

  /** Runs `script` (a function body; `arguments[i]` are `args`) in the page; returns its JSON value. */
  execute(script, args = []) { return this.command('POST', '/execute/sync', { script, args }); }

  /**
   * Runs an async function body in the page: its promise's result, or its rejection as an
   * Error (WebDriver's execute/sync awaits a returned promise).
   */
  evaluate(body, args = []) { return this.execute(`return (async () => { ${body} })(...arguments);`, args); }

  /** Polls `script` until it returns a truthy value (returned), for at most `timeout` ms. */
  async waitFor(script, args = [], { timeout = 20_000, what = script } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const v = await this.execute(script, args);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The W3C element reference of the first match of a CSS `selector`. */
  async element(selector) {
    const v = await this.command('POST', '/element', { using: 'css selector', value: selector });
    return Object.values(v)[0];
  }

  /** Clicks the element as a user would (scrolled into view, hit-tested, trusted events). */
  async click(selector) {
    await this.command('POST', `/element/${await this.element(selector)}/click`, {});
  }

  /** Ends the session (the driver closes MiniBrowser), then stops the driver and Xvfb. */
  async close() {
    try {
      await this.command('DELETE', '');
    } finally {
      this.stop();
    }
  }
}

/**
 * Starts Xvfb, WebKitWebDriver on a free port and a MiniBrowser session; resolves to its
 * `Session`. Rejects with the reason when one of them cannot start.
 */
export async function startWebKit({ driver = WEBKIT_DRIVER, startupMs = 30_000 } = {}) {
  const xvfb = await startXvfb();
  const port = await freePort();
  const proc = spawn(driver, [`--port=${port}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DISPLAY: xvfb.display },
  });
  const stop = () => {
    proc.kill('SIGTERM');
    xvfb.proc.kill('SIGTERM');
  };
  try {
    await new Promise((resolve, reject) => {
      proc.once('spawn', resolve);
      proc.once('error', (e) => reject(new Error(`${driver} could not start (apt-get install webkit2gtk-driver): ${e.message}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url, proc, startupMs);
    // No `webkitgtk:browserOptions`: the driver's default is Debian's MiniBrowser with --automation.
    const r = await fetch(`${url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { pageLoadStrategy: 'normal' } } }),
      signal: AbortSignal.timeout(startupMs),
    });
    const json = await r.json();
    if (!r.ok) throw new WebDriverError('POST /session', json.value?.error ?? r.status, json.value?.message ?? '');
    const session = new Session(url, json.value.sessionId, stop);
    session.capabilities = json.value.capabilities;
    return session;
  } catch (e) {
    stop();
    throw e;
  }
}
