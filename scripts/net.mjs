// Loopback helpers for the scripts, tests and benchmarks that start a server or a driver:
// a free port, and a static server whose root is a folder.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A loopback port nothing listened on a moment ago (whoever binds it next may still lose a
 * race with another process: callers that start a server on it retry or fail loudly).
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * `python3 -m http.server` on a free loopback port with `root` as its root, once it answers
 * `probe` (a path under the root): `{base, stop}`, `base` its URL without a trailing slash.
 */
export async function serveFolder(root, probe = '/package.json') {
  const port = await freePort();
  const proc = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1'], { cwd: root, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    try { if ((await fetch(base + probe)).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, stop: () => proc.kill() };
}
