// The reader and the table of benches/compare.sh (see there).
//
//   node benches/compare-read.mjs SUITE RAW OUT      one run's output → OUT: {id: [value, unit]}
//   node benches/compare-read.mjs --table DIR BEFORE AFTER   results → a Markdown table
//
// Units: "ns" and "ms" are times (lower is better), "/s" a rate (higher is better). Every
// ratio is one of times, after / before: above 1 the after commit is slower.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
/** The first JSON object printed in a text (the Node benches print one, maybe after logs). */
const jsonIn = (text) => JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));

/**
 * Criterion's saved runs under DIR: each benchmark's fastest sample (a sample's time per
 * iteration), in ns. Not the median: on a machine shared with other work, load only ever
 * lengthens a sample, so the fastest is the steadiest figure of the code itself.
 */
function criterion(suite, dir) {
  const ids = {};
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (!e.isDirectory()) continue;
      if (e.name === 'new' && existsSync(join(p, 'sample.json'))) {
        const id = readJson(join(p, 'benchmark.json')).full_id;
        const { iters, times } = readJson(join(p, 'sample.json'));
        ids[`${suite}/${id}`] = [Math.min(...times.map((t, i) => t / iters[i])), 'ns'];
      } else walk(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return ids;
}

/** The ingest table: reports/s and the p99 of a batch, per engine and collector threads. */
function ingest(text) {
  const ids = {};
  for (const line of text.split('\n')) {
    const c = line.split('|').map((s) => s.trim());
    if (c.length < 9 || !/^\d+$/.test(c[4])) continue;
    const id = `ingest/${c[1]}/collector threads ${c[2]}`;
    ids[`${id}/reports`] = [Number(c[4]), '/s'];
    ids[`${id}/p99 per batch`] = [Number(c[5].split('/')[1]), 'ms'];
  }
  return ids;
}

/** A Node bench's object: "x ms" strings are times, *_per_s numbers rates. */
function node(suite, obj, prefix = suite, ids = {}) {
  for (const [k, v] of Object.entries(obj)) {
    const id = `${prefix}/${k}`;
    if (typeof v === 'string' && / ms$/.test(v)) ids[id] = [parseFloat(v), 'ms'];
    else if (typeof v === 'number' && /per_s$/.test(k)) ids[id] = [v, '/s'];
    else if (v && typeof v === 'object' && !Array.isArray(v) && k !== 'scale') node(suite, v, id, ids);
  }
  return ids;
}

/** The browser page's rates: every {median} is a rate (units/s). */
function browserBench(obj) {
  const ids = {};
  for (const [k, r] of Object.entries(obj.krr ?? {})) {
    for (const [m, v] of Object.entries(r)) if (v && typeof v.median === 'number') ids[`browser/bench/k=${k}/${m}`] = [v.median, '/s'];
  }
  if (obj.getRandomValues) ids['browser/bench/getRandomValues'] = [obj.getRandomValues.gb_per_s * 1e9, '/s'];
  return ids;
}

/** navigate.mjs: cold loads and warm verify (ms), perturbMany (reports/s). */
function navigate(obj) {
  const ids = {};
  for (const [doc, r] of Object.entries(obj.navigation ?? {})) {
    ids[`browser/navigate/cold ${doc}/verified`] = [r.verified, 'ms'];
    ids[`browser/navigate/cold ${doc}/after ready`] = [r.afterReady, 'ms'];
  }
  for (const [doc, r] of Object.entries(obj.verify ?? {})) {
    const v = typeof r === 'number' ? r : r?.median ?? r?.verify;
    if (typeof v === 'number') ids[`browser/navigate/verify ${doc}`] = [v, 'ms'];
  }
  for (const [doc, r] of Object.entries(obj.perturbMany ?? {})) ids[`browser/navigate/perturbMany ${doc}`] = [r.perturbMany, '/s'];
  return ids;
}

function read(suite, raw, out) {
  let ids;
  if (suite === 'ingest') ids = ingest(readFileSync(raw, 'utf8'));
  else if (suite.startsWith('wasm/')) ids = node(suite, jsonIn(readFileSync(raw, 'utf8')));
  else if (suite === 'browser/bench') ids = browserBench(readJson(`${raw}.json`));
  else if (suite === 'browser/navigate') ids = navigate(readJson(`${raw}.json`));
  else ids = criterion(suite, out.replace(/\.json$/, '.json.criterion'));
  if (Object.keys(ids).length === 0) throw new Error(`${suite}: no figures in ${raw}`);
  writeFileSync(out, JSON.stringify(ids, null, 1));
}

const time = (v, unit) => (unit === '/s' ? 1 / v : v);
function show(v, unit) {
  if (unit === '/s') {
    const [d, s] = v >= 1e6 ? [1e6, 'M/s'] : v >= 1e3 ? [1e3, 'k/s'] : [1, '/s'];
    return `${(v / d).toPrecision(3)} ${s}`;
  }
  const ns = unit === 'ms' ? v * 1e6 : v;
  const [d, s] = ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] : ns >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
  return `${(ns / d).toPrecision(3)} ${s}`;
}

function table(dir, before, after) {
  // results/TREE.rR.SUITE.json (and .load): the best of the rounds per tree and id.
  const best = { before: {}, after: {} };
  const loads = {}; // round → the load averages at the start of its runs
  for (const f of readdirSync(dir).sort()) {
    const m = /^(before|after)\.r(\d+)\.([^.]+)\.json$/.exec(f);
    if (!m) continue;
    (loads[m[2]] ??= []).push(Number(readFileSync(join(dir, f.replace(/\.json$/, '.load')), 'utf8')));
    for (const [id, [v, unit]] of Object.entries(readJson(join(dir, f)))) {
      const b = (best[m[1]][id] ??= { v, unit, rounds: 0 });
      if (time(v, unit) < time(b.v, unit)) b.v = v;
      b.rounds += 1;
    }
  }
  const ids = [...new Set([...Object.keys(best.before), ...Object.keys(best.after)])];
  const rows = [`| id | before ${before} | after ${after} | after/before (time) | rounds |`, '|---|---:|---:|---:|---:|'];
  const slow = [];
  for (const id of ids) {
    const b = best.before[id], a = best.after[id];
    if (!a) { rows.push(`| ${id} | ${show(b.v, b.unit)} | — | gone | ${b.rounds} |`); continue; }
    if (!b) { rows.push(`| ${id} | — | ${show(a.v, a.unit)} | new | ${a.rounds} |`); continue; }
    const ratio = time(a.v, a.unit) / time(b.v, b.unit);
    if (ratio > 1.05) slow.push(id);
    rows.push(`| ${id} | ${show(b.v, b.unit)} | ${show(a.v, a.unit)} | ${ratio > 1.05 ? `**${ratio.toFixed(3)}**` : ratio.toFixed(3)} | ${Math.min(a.rounds, b.rounds)} |`);
  }
  console.log(rows.join('\n'));
  const range = (l) => `${Math.min(...l).toFixed(2)}–${Math.max(...l).toFixed(2)}`;
  console.log(`\nLoad average (1 min) at the start of the runs, per round: ${Object.entries(loads).map(([r, l]) => `${r}: ${range(l)}`).join('; ')}.`);
  console.log(slow.length ? `Slower by more than 5 %: ${slow.join(', ')}.` : 'No id slower by more than 5 %.');
}

const [mode, ...args] = process.argv.slice(2);
if (mode === '--table') table(...args);
else read(mode, ...args);
