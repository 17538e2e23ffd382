// Report envelopes (Mechanism.report) and their delivery (sendReports, beaconOnPageHide),
// against a local HTTP collector stub that fails on demand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { parseMechanism, sendReports, beaconOnPageHide, PrivliftError } from '../../js/privlift.js';

const text = JSON.stringify({
  format: 'privlift-mechanism', version: 1, id: 'grade-krr', labels: ['A', 'B', 'C'], prior: [0.2, 0.5, 0.3],
  mechanism: { kind: 'krr', epsilon: 1 }, claims: { ldp_x: 1 },
});
const unaryText = JSON.stringify({
  format: 'privlift-mechanism', version: 1, id: 'oue', labels: ['a', 'b', 'c'], prior: [0.2, 0.5, 0.3],
  mechanism: { kind: 'unary', q01: 0.25, q10: 0.5 }, claims: { ldp_x: 2 },
});

async function mechanism(t = text) {
  const doc = await parseMechanism(new TextEncoder().encode(t));
  try {
    return doc.verify({});
  } finally {
    doc.free();
  }
}

/** A collector stub: answers each POST with the next status of `script` (then 202), records bodies. */
async function collector(script = []) {
  const posts = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      posts.push({ method: req.method, type: req.headers['content-type'], body: JSON.parse(body) });
      const status = script.shift() ?? 202;
      res.writeHead(status, { 'content-type': 'application/json' });
      const n = posts.at(-1).body.reports.length;
      const code = { 400: 'bad_report', 408: 'http' }[status] ?? 'busy';
      res.end(JSON.stringify(status === 202 ? { accepted: n, duplicates: 0 } : { code }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1/reports`, posts, close: () => server.close() };
}

test('a report carries the mechanism, the document hash, the output label and a random id: nothing else', async () => {
  const m = await mechanism();
  const sha = createHash('sha256').update(text).digest('hex');
  assert.equal(m.sha256, sha);
  const y = m.perturb('B');
  const r = m.report(y);
  assert.deepEqual(Object.keys(r).sort(), ['mechanism', 'output', 'report_id', 'sha256']);
  assert.equal(r.mechanism, 'grade-krr');
  assert.equal(r.sha256, sha);
  assert.equal(r.output, y);
  assert.match(r.report_id, /^[0-9a-f]{32}$/);
  assert.equal(m.report(m.outputLabels.indexOf(y)).output, r.output, 'an index gives the same output');
  assert.ok(Object.isFrozen(r));
  // Ids are fresh: 2000 reports, 2000 distinct ids.
  const ids = new Set(Array.from({ length: 2000 }, () => m.report(0).report_id));
  assert.equal(ids.size, 2000);
  for (const bad of [3, 'Z']) {
    assert.throws(() => m.report(bad), (e) => e instanceof PrivliftError && e.code === 'unknown_output' && !e.message.includes('Z'));
  }
  assert.throws(() => m.report(-1), (e) => e.code === 'invalid_argument');
});

test('a unary report is the released bits as a 0/1 string', async () => {
  const m = await mechanism(unaryText);
  const bits = m.perturbBits('b');
  const r = m.report(bits);
  assert.equal(r.output, Array.from(bits).join(''));
  assert.equal(m.report([true, false, true]).output, '101');
  assert.throws(() => m.report([1, 0]), (e) => e.code === 'invalid_argument');
  assert.throws(() => m.report([1, 2, 0]), (e) => e.code === 'invalid_argument');
});

test('sendReports posts the batch and retries failures with the same report ids', async () => {
  const m = await mechanism();
  const reports = [m.report(0), m.report(1), m.report(2)];
  const c = await collector([503, 429, 500]);
  try {
    const ack = await sendReports(c.url, reports, { retries: 3, backoffMs: 1 });
    assert.deepEqual(ack, { accepted: 3, duplicates: 0 });
    assert.equal(c.posts.length, 4, 'three failures, then the 202');
    for (const p of c.posts) {
      assert.equal(p.method, 'POST');
      assert.equal(p.type, 'application/json');
      assert.deepEqual(p.body, { reports: reports.map((r) => ({ ...r })) }, 'every attempt sends the same ids');
    }
  } finally {
    c.close();
  }
});

test('a 408 (the request did not arrive in time) is retried with the same report ids', async () => {
  const m = await mechanism();
  const reports = [m.report(0), m.report(2)];
  const c = await collector([408, 408]);
  try {
    assert.deepEqual(await sendReports(c.url, reports, { retries: 2, backoffMs: 1 }), { accepted: 2, duplicates: 0 });
    assert.equal(c.posts.length, 3, 'two 408s, then the 202');
    for (const p of c.posts) assert.deepEqual(p.body, { reports: reports.map((r) => ({ ...r })) });
  } finally {
    c.close();
  }
  const slow = await collector([408, 408]);
  try {
    await assert.rejects(sendReports(slow.url, [m.report(1)], { retries: 1, backoffMs: 1 }),
      (e) => e instanceof PrivliftError && e.code === 'http' && e.status === 408 && e.serverCode === 'http');
    assert.equal(slow.posts.length, 2);
  } finally {
    slow.close();
  }
});

test('a refused batch is not retried; exhausted retries and a dead collector are typed errors', async () => {
  const m = await mechanism();
  const c = await collector([400]);
  try {
    await assert.rejects(sendReports(c.url, [m.report(0)], { backoffMs: 1 }),
      (e) => e instanceof PrivliftError && e.code === 'http' && e.status === 400 && e.serverCode === 'bad_report');
    assert.equal(c.posts.length, 1);
  } finally {
    c.close();
  }
  const busy = await collector([503, 503]);
  try {
    await assert.rejects(sendReports(busy.url, [m.report(0)], { retries: 1, backoffMs: 1 }),
      (e) => e.code === 'http' && e.status === 503);
    assert.equal(busy.posts.length, 2);
  } finally {
    busy.close();
  }
  // Nothing listens there (a port just closed).
  const gone = await collector();
  gone.close();
  await assert.rejects(sendReports(gone.url, [m.report(0)], { retries: 1, backoffMs: 1 }), (e) => e.code === 'network');
});

test('an aborted signal is a PrivliftError network with the abort reason as cause, not retried', async () => {
  const m = await mechanism();
  const c = await collector();
  try {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(sendReports(c.url, [m.report(0)], { signal: ac.signal, backoffMs: 1 }),
      (e) => e instanceof PrivliftError && e.code === 'network' && /aborted/.test(e.message)
        && e.cause instanceof Error && e.cause.name === 'AbortError');
    assert.equal(c.posts.length, 0);
  } finally {
    c.close();
  }
  // Aborted while waiting to retry (the first attempt was a 503).
  const busy = await collector([503]);
  try {
    const ac = new AbortController();
    const reason = new Error('navigated away');
    const sent = sendReports(busy.url, [m.report(0)], { signal: ac.signal, backoffMs: 60_000 });
    while (busy.posts.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    ac.abort(reason);
    await assert.rejects(sent, (e) => e instanceof PrivliftError && e.code === 'network' && e.cause === reason);
    assert.equal(busy.posts.length, 1);
  } finally {
    busy.close();
  }
});

test('malformed reports are refused before any request', async () => {
  const m = await mechanism();
  let calls = 0;
  const fetch = async () => { calls++; return { status: 202, json: async () => ({ accepted: 1, duplicates: 0 }) }; };
  const good = m.report(0);
  for (const [reports, field] of [
    [[], 'reports'],
    ['x', 'reports'],
    [[{ ...good, report_id: 'short' }], 'reports[0].report_id'],
    [[{ ...good, sha256: 'X'.repeat(64) }], 'reports[0].sha256'],
    [[good, null], 'reports[1]'],
    [[{ ...good, output: { secret: 1 } }], 'reports[0].output'],
  ]) {
    await assert.rejects(sendReports('http://127.0.0.1:9/v1/reports', reports, { fetch }),
      (e) => e.code === 'invalid_argument' && e.message.includes(field), field);
  }
  assert.equal(calls, 0);
  // Extra fields an app may have added never leave the device.
  let sent;
  await sendReports('http://x/v1/reports', [{ ...good, value: 'B' }], { fetch: async (_, init) => { sent = init.body; return fetch(); } });
  assert.deepEqual(Object.keys(JSON.parse(sent).reports[0]).sort(), ['mechanism', 'output', 'report_id', 'sha256']);
});

test('beaconOnPageHide hands the pending reports to sendBeacon on page hide', async () => {
  const m = await mechanism();
  const target = new EventTarget();
  const beacons = [];
  let pending = [m.report(0), m.report(1)];
  const stop = beaconOnPageHide('http://x/v1/reports', () => pending, {
    target, beacon: (url, data) => { beacons.push({ url, data }); return true; },
  });
  target.dispatchEvent(new Event('pagehide'));
  assert.equal(beacons.length, 1);
  assert.equal(beacons[0].url, 'http://x/v1/reports');
  assert.equal(beacons[0].data.type, 'text/plain;charset=utf-8'); // CORS-safelisted
  assert.deepEqual(JSON.parse(await beacons[0].data.text()).reports.map((r) => r.report_id), pending.map((r) => r.report_id));
  pending = [];
  target.dispatchEvent(new Event('pagehide'));
  assert.equal(beacons.length, 1, 'nothing pending, nothing sent');
  stop();
  pending = [m.report(2)];
  target.dispatchEvent(new Event('pagehide'));
  assert.equal(beacons.length, 1, 'stopped');
});
