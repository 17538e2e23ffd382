#!/usr/bin/env node
// Fails on any import circle inside a crate of the workspace, and prints it.
//
// The graph: one node per module file; an edge A → B when A names an item that B
// defines, by a `use` line or an inline `crate::`, `super::`, `self::` or child-module
// path. A path is followed through re-exports (`pub use`, and the plain `use` a child's
// `super::Name` reaches) to the file that defines the item, so a façade (a `pub use`,
// such as `lib.rs`'s) adds no edge of its own. Comments and string literals are not
// read. Each edge is then seen at every folder level: between two files of one folder
// it joins those files, between two folders it joins the folders. A cycle at any level
// is a circle.
//
// A folder's own body (its `mod.rs`, `lib.rs`/`main.rs`, or the `x.rs` beside a folder
// `x/`) is the folder itself: its children read what it holds for all of them
// (`super::…`), and it calls them; those edges stay inside the folder and join nothing
// at its level. `--strict` counts them too (the body a node of its own, shown as `·`).
//
// Test code (a module or a `use` under `#[cfg(test)]`) sits above every floor, as the
// integration tests do: it adds no edge. `pub(in path)` names no dependency.
//
// Usage: node scripts/check-imports.mjs [--strict] [CRATE_SRC_DIR…] (default: every
// crate's src); `--self-test` runs it on the fixtures of tests/imports/.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const strict = args.includes('--strict');
const dirs = args.filter((a) => !a.startsWith('--'));
const crates = dirs.length ? dirs : ['src', 'design/src', 'cli/src', 'wasm/src'];

/** `text` with comments, string and char literals blanked (offsets kept). */
function strip(text) {
  let out = '';
  let i = 0;
  const n = text.length;
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  while (i < n) {
    const c = text[i];
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? n : e;
      out += blank(text.slice(i, end));
      i = end;
    } else if (c === '/' && d === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (text[j] === '/' && text[j + 1] === '*') (depth++, (j += 2));
        else if (text[j] === '*' && text[j + 1] === '/') (depth--, (j += 2));
        else j++;
      }
      out += blank(text.slice(i, j));
      i = j;
    } else if ((c === 'r' || (c === 'b' && d === 'r')) && /^b?r#*"/.test(text.slice(i, i + 40)) && !/\w/.test(text[i - 1] ?? '')) {
      const m = /^b?r(#*)"/.exec(text.slice(i));
      const close = '"' + m[1];
      const e = text.indexOf(close, i + m[0].length);
      const end = e < 0 ? n : e + close.length;
      out += blank(text.slice(i, end));
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += blank(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === "'") {
      // A char literal ('x', '\n', '\u{..}'), not a lifetime ('a).
      const m = /^'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'/u.exec(text.slice(i, i + 16));
      if (m) {
        out += blank(m[0]);
        i += m[0].length;
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The paths (arrays of segments) a use tree names, with the name each binds. */
function useTree(text) {
  const toks = text.match(/::|[{},*]|\bas\b|[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  let k = 0;
  const paths = [];
  function tree(prefix) {
    const segs = [...prefix];
    while (k < toks.length) {
      const t = toks[k];
      if (t === '{') {
        k++;
        while (k < toks.length && toks[k] !== '}') {
          tree(segs);
          if (toks[k] === ',') k++;
        }
        k++;
        return;
      } else if (t === '*') {
        k++;
        paths.push({ path: segs, glob: true });
        return;
      } else if (t === '::') {
        k++;
      } else if (t === ',' || t === '}') {
        break;
      } else if (t === 'as') {
        k++;
        const alias = toks[k++];
        paths.push({ path: segs, bind: alias });
        return;
      } else {
        segs.push(t);
        k++;
      }
    }
    if (segs.length > prefix.length || segs.length > 0) {
      const last = segs[segs.length - 1];
      if (last === 'self') paths.push({ path: segs.slice(0, -1), bind: segs[segs.length - 2] });
      else paths.push({ path: segs, bind: last });
    }
  }
  tree([]);
  return paths;
}

const DEF =
  /\b(?:fn|struct|enum|union|trait|type|const|static|mod)\s+([A-Za-z_][A-Za-z0-9_]*)|macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)/g;

/** One crate: its modules (files and inline modules) and the edges between files. */
function crate(dir) {
  const base = join(root, dir);
  const top = ['lib.rs', 'main.rs'].map((f) => join(base, f)).filter(existsSync);
  const modules = new Map(); // "a::b" → { path: [..], file, text, children: Map, uses: [], defs: Set }
  const files = new Map(); // file → module key of the file
  const key = (p) => p.join('::');

  function load(path, file, childDir, test) {
    const raw = readFileSync(file, 'utf8');
    const text = strip(raw);
    files.set(file, key(path));
    addModule(path, file, text, 0, text.length, childDir, raw, test);
  }

  /** Whether the item starting at `at` carries `#[cfg(test)]` among its attributes. */
  const cfgTest = (text, at) => /#\[cfg\(test\)\]\s*(#\[[^\]]*\]\s*)*(pub(\([^)]*\))?\s+)?$/.test(text.slice(Math.max(0, at - 300), at));

  function addModule(path, file, text, from, to, childDir, raw, test) {
    const body = text.slice(from, to);
    const mod = { path, file, text, from, to, raw, test, children: new Map(), uses: [], defs: new Set() };
    modules.set(key(path), mod);
    // Inline modules: `mod x { … }`, their extent by brace matching.
    const inline = [];
    for (const m of body.matchAll(/\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{/g)) {
      const open = from + m.index + m[0].length - 1;
      if (inline.some(([a, b]) => open > a && open < b)) continue;
      let depth = 0;
      let j = open;
      for (; j < to; j++) {
        if (text[j] === '{') depth++;
        else if (text[j] === '}' && --depth === 0) break;
      }
      inline.push([open, j, m[1], cfgTest(text, from + m.index)]);
    }
    mod.inline = inline;
    const outside = (i) => !inline.some(([a, b]) => i > a && i < b);
    for (const m of body.matchAll(/(#\[path\s*=\s*"([^"]+)"\]\s*)?\b(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;/g)) {
      if (!outside(from + m.index)) continue;
      const name = m[3];
      const attr = /#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;$/.exec(raw.slice(Math.max(0, from + m.index - 200), from + m.index + m[0].length));
      let f = attr ? join(dirname(file), attr[1]) : [join(childDir, name + '.rs'), join(childDir, name, 'mod.rs')].find(existsSync);
      if (!f || !existsSync(f)) continue;
      const childPath = [...path, name];
      mod.children.set(name, key(childPath));
      const cd = f.endsWith('mod.rs') ? dirname(f) : join(dirname(f), name);
      load(childPath, f, cd, test || cfgTest(text, from + m.index));
    }
    for (const [a, b, name, t] of inline) {
      const childPath = [...path, name];
      mod.children.set(name, key(childPath));
      addModule(childPath, file, text, a + 1, b, join(childDir, name), raw, test || t);
    }
    const own = text
      .slice(from, to)
      .split('')
      .map((c, i) => (outside(from + i) ? c : ' '))
      .join('');
    for (const m of own.matchAll(DEF)) mod.defs.add(m[1] ?? m[2]);
    for (const m of own.matchAll(/(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+([^;]+);/g)) {
      const at = from + m.index;
      const t = cfgTest(text, at);
      for (const u of useTree(m[2])) mod.uses.push({ ...u, at, len: m[0].length, reexport: !!m[1], test: t });
    }
    // `pub(in crate::x)` restricts visibility: no dependency.
    mod.own = own.replace(/\bpub\s*\(\s*in\s+[^)]*\)/g, (v) => ' '.repeat(v.length));
  }

  if (top.length !== 1) throw new Error(`${dir}: expected one of lib.rs, main.rs`);
  load([], top[0], base);

  /** The absolute module path of `path` (segments) written in module `mod`, or null (extern). */
  function absolute(mod, segs) {
    let cur = [...mod.path];
    let i = 0;
    if (segs[0] === 'crate') (cur = []), (i = 1);
    else if (segs[0] === 'self') i = 1;
    else if (segs[0] === 'super') {
      while (segs[i] === 'super') (cur = cur.slice(0, -1)), i++;
    } else if (!mod.children.has(segs[0])) return null;
    return [...cur, ...segs.slice(i)];
  }

  /** The module key defining the item at absolute `segs`, following re-exports. */
  function resolve(segs, seen = new Set()) {
    let cur = modules.get('');
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i];
      const child = cur.children.get(seg);
      if (child) {
        cur = modules.get(child);
        continue;
      }
      if (cur.defs.has(seg)) return key(cur.path);
      const tag = key(cur.path) + '#' + seg;
      if (seen.has(tag)) return key(cur.path);
      seen.add(tag);
      for (const u of cur.uses) {
        if (u.bind === seg) {
          const abs = absolute(cur, u.path);
          return abs ? resolve([...abs, ...segs.slice(i + 1)], seen) : key(cur.path);
        }
      }
      for (const u of cur.uses) {
        if (!u.glob) continue;
        const abs = absolute(cur, u.path);
        if (!abs) continue;
        const m = modules.get(key(abs));
        if (m && (m.defs.has(seg) || m.children.has(seg) || m.uses.some((v) => v.bind === seg))) {
          return resolve([...abs, ...segs.slice(i)], seen);
        }
      }
      return key(cur.path);
    }
    return key(cur.path);
  }

  const edges = []; // { from: fileKey, to: fileKey, where }
  const fileOf = (k) => modules.get(k).file;
  for (const mod of modules.values()) {
    if (mod.test) continue;
    const line = (at) => mod.text.slice(0, at).split('\n').length;
    const add = (abs, at, what) => {
      const to = fileOf(resolve(abs));
      if (to !== mod.file) edges.push({ from: mod.file, to, where: `${relative(root, mod.file)}:${line(at)} ${what}` });
    };
    for (const u of mod.uses) {
      // A re-export is a façade: paths are followed through it, it is no edge itself.
      const abs = u.reexport || u.test ? null : absolute(mod, u.path);
      if (abs && abs.length > 0) add(abs, u.at, `use ${u.path.join('::')}${u.glob ? '::*' : ''}`);
    }
    let own = mod.own;
    for (const u of mod.uses) own = own.slice(0, u.at - mod.from) + ' '.repeat(u.len) + own.slice(u.at - mod.from + u.len);
    const heads = ['crate', 'super', 'self', ...mod.children.keys()].join('|');
    const re = new RegExp(`(?<![\\w:])(?:${heads})(?:::[A-Za-z_][A-Za-z0-9_]*)+`, 'g');
    for (const m of own.matchAll(re)) {
      const segs = m[0].split('::');
      if (segs.length < 2 && segs[0] !== 'super') continue;
      const abs = absolute(mod, segs);
      if (abs && abs.length > 0) add(abs, mod.from + m.index, m[0]);
    }
  }
  return { base, edges, modules, files };
}

/** Node names of file `f` (module path segments; `·` for a folder's own body). */
function nodePath(files, f) {
  return files.get(f) === '' ? [] : files.get(f).split('::');
}

/** Strongly connected components (Tarjan) of `graph` (Map node → Set node). */
function sccs(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  function visit(v) {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) (visit(w), low.set(v, Math.min(low.get(v), low.get(w))));
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do (w = stack.pop()), on.delete(w), c.push(w);
      while (w !== v);
      if (c.length > 1) out.push(c);
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** One cycle through `start` inside component `comp`. */
function cycle(graph, comp, start) {
  const inComp = new Set(comp);
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let u = prev.get(v); u !== null; u = prev.get(u)) path.unshift(u);
        return [...path, start];
      }
      if (!prev.has(w)) (prev.set(w, v), queue.push(w));
    }
  }
  return [start];
}

/** The circles of the crates whose sources are in `dirs`: one report (lines) each. */
function circles(dirs, strict) {
  const out = [];
  let total = 0;
  for (const dir of dirs) {
    const { edges, files } = crate(dir);
    total += edges.length;
    // Per folder level: the graph of its children, with the evidence of each arrow.
    const levels = new Map(); // level key → { graph, why }
    for (const e of edges) {
      const a = nodePath(files, e.from);
      const b = nodePath(files, e.to);
      let p = 0;
      while (p < a.length && p < b.length && a[p] === b[p]) p++;
      const level = a.slice(0, p).join('::') || '(crate)';
      const na = a[p] ?? '·';
      const nb = b[p] ?? '·';
      if (!strict && (na === '·' || nb === '·')) continue;
      if (!levels.has(level)) levels.set(level, { graph: new Map(), why: new Map() });
      const { graph, why } = levels.get(level);
      if (!graph.has(na)) graph.set(na, new Set());
      graph.get(na).add(nb);
      const k = na + '→' + nb;
      if (!why.has(k)) why.set(k, []);
      why.get(k).push(e.where);
    }
    for (const [level, { graph, why }] of levels) {
      for (const comp of sccs(graph)) {
        const c = cycle(graph, comp, comp.sort()[0]);
        const knot = comp.length > c.length - 1 ? ` (the knot: ${comp.join(', ')})` : '';
        const lines = [`${dir}: import circle in ${level}: ${c.join(' → ')}${knot}`];
        for (let i = 0; i + 1 < c.length; i++) {
          const w = why.get(c[i] + '→' + c[i + 1]);
          lines.push(`  ${c[i]} → ${c[i + 1]}: ${w.slice(0, 3).join('; ')}${w.length > 3 ? ` (+${w.length - 3})` : ''}`);
        }
        out.push(lines);
      }
    }
  }
  return { found: out, total };
}

/**
 * `--self-test`: the checker on the small crates of `tests/imports/` (each folder one
 * crate, its `expect.txt` the first line of every circle it must report, in order), so
 * a checker that stops seeing circles fails too.
 */
function selfTest() {
  const fixtures = join(root, 'tests/imports');
  let bad = 0;
  for (const name of readdirSync(fixtures).sort()) {
    const dir = join('tests/imports', name);
    const expect = readFileSync(join(root, dir, 'expect.txt'), 'utf8').split('\n').filter(Boolean);
    for (const strict of [false, true]) {
      const want = expect.filter((l) => strict || !l.startsWith('strict: ')).map((l) => l.replace(/^strict: /, ''));
      const got = circles([dir], strict).found.map((c) => c[0].slice(dir.length + 2));
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        bad++;
        console.error(`${dir}${strict ? ' --strict' : ''}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      }
    }
  }
  if (bad) process.exit(1);
  console.log('import checker self-test: every fixture as expected');
}

if (args.includes('--self-test')) {
  selfTest();
} else {
  const { found, total } = circles(crates, strict);
  for (const lines of found) console.error(lines.join('\n'));
  if (found.length) {
    const dot = strict ? "; '·' is a folder's own body (mod.rs, lib.rs, main.rs, or x.rs beside x/)" : '';
    console.error(`${found.length} import circle(s)${dot}`);
    process.exit(1);
  }
  console.log(`import graph: ${crates.join(', ')}: ${total} edges, no circle`);
}
