// The import graph of src/, measured as issue "the house" counts it: each folder directly under
// src/ is one part, each loose file is one. Every relative import counts (type-only included, and
// require()/import() of a relative path), once per importing file and imported file.
//   node scripts/house/graph.mjs            the figures
//   node scripts/house/graph.mjs --verbose  also the cycles, the upward imports and the layers
// Figures: file-level import cycles (strongly connected groups of files), the parts' layers (the
// parts ordered so that the fewest imports point upwards: an exact search inside each cycle of
// parts; then the longest chain of parts, counted in parts), the imports that point from a lower
// layer to a higher one, and the loose files.
import ts from 'typescript';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? '.');
const verbose = process.argv.includes('--verbose');
const src = join(root, 'src');

function walk(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : /\.ts$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveSpec(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, join(base, 'index.ts')]) if (existsSync(c) && statSync(c).isFile()) return c;
  throw new Error(`${relative(root, from)}: cannot resolve ${spec}`);
}

const files = walk(src).sort();
/** file → Set(file) */
const edges = new Map(files.map((f) => [f, new Set()]));
for (const f of files) {
  const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, true);
  for (const { fileName } of info.importedFiles) if (fileName.startsWith('.')) edges.get(f).add(resolveSpec(f, fileName));
}

/** Tarjan's strongly connected components of a graph given as Map(node → iterable of nodes). */
function sccs(graph) {
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    on = new Set(),
    stack = [],
    out = [];
  function visit(v) {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      out.push(c);
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const rel = (f) => relative(src, f);
const fileCycles = sccs(edges).filter((c) => c.length > 1 || edges.get(c[0]).has(c[0]));

const part = (f) => {
  const r = rel(f);
  const i = r.indexOf('/');
  return i < 0 ? r : `${r.slice(0, i)}/`;
};
const parts = [...new Set(files.map(part))].sort();
/** part → part → [file imports] */
const pw = new Map(parts.map((p) => [p, new Map()]));
for (const [f, tos] of edges)
  for (const t of tos) {
    const a = part(f),
      b = part(t);
    if (a === b) continue;
    const m = pw.get(a);
    if (!m.has(b)) m.set(b, []);
    m.get(b).push(`${rel(f)} → ${rel(t)}`);
  }
const partGraph = new Map(parts.map((p) => [p, [...pw.get(p).keys()]]));
const weight = (a, b) => pw.get(a).get(b)?.length ?? 0;

// Order each strongly connected group of parts so that the fewest file imports point backwards
// (exact, over subsets: a group is at most a couple of dozen parts).
const position = new Map();
const upward = [];
const comps = sccs(partGraph); // Tarjan emits sinks first
for (const comp of comps) {
  if (comp.length === 1) continue;
  const n = comp.length;
  if (n > 22) throw new Error(`a cycle of ${n} parts is too large for the exact search`);
  const w = comp.map((a) => comp.map((b) => weight(a, b)));
  // best[S] = least backward weight placing the parts of S first (S ordered among themselves);
  // a part placed after S has its imports into S pointing backwards... we place "dependencies
  // first": the order lists imported before importer, so an import from an earlier to a later
  // part is upward.
  const size = 1 << n;
  const best = new Float64Array(size).fill(Infinity);
  const choice = new Int8Array(size).fill(-1);
  best[0] = 0;
  for (let s = 0; s < size; s++) {
    if (best[s] === Infinity) continue;
    for (let j = 0; j < n; j++) {
      if (s & (1 << j)) continue;
      // placing j after every part of S: the imports from S into j point upwards
      let c = 0;
      for (let i = 0; i < n; i++) if (s & (1 << i)) c += w[i][j];
      const t = s | (1 << j);
      if (best[s] + c < best[t]) {
        best[t] = best[s] + c;
        choice[t] = j;
      }
    }
  }
  const order = [];
  for (let s = size - 1; s; s &= ~(1 << choice[s])) order.unshift(choice[s]);
  order.forEach((j, k) => position.set(comp[j], k));
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) if (w[a][b] && position.get(comp[a]) < position.get(comp[b])) upward.push(...pw.get(comp[a]).get(comp[b]));
}

// Layers: the longest chain of imports once the upward ones are set aside (a part's layer is one
// above the highest part it imports; the lowest layer is 1).
const layer = new Map();
const isUpward = (a, b) => position.has(a) && position.has(b) && comps.some((c) => c.includes(a) && c.includes(b)) && position.get(a) < position.get(b);
function layerOf(p, seen = new Set()) {
  if (layer.has(p)) return layer.get(p);
  if (seen.has(p)) throw new Error(`cycle left at ${p}`);
  seen.add(p);
  let l = 1;
  for (const q of partGraph.get(p)) if (!isUpward(p, q)) l = Math.max(l, layerOf(q, seen) + 1);
  layer.set(p, l);
  return l;
}
for (const p of parts) layerOf(p);
const layers = Math.max(...layer.values());
const loose = files.filter((f) => !rel(f).includes('/'));

console.log(`src/ at ${root}: ${files.length} files, ${parts.length} parts (${loose.length} loose files)`);
console.log(`file-level import cycles: ${fileCycles.length}`);
console.log(`layers: ${layers}`);
console.log(`imports from a lower layer to a higher: ${upward.length}`);
if (verbose) {
  for (const c of fileCycles) console.log(`  cycle: ${c.map(rel).sort().join(', ')}`);
  for (const u of upward) console.log(`  upward: ${u}`);
  const byLayer = [...layer].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (let l = layers; l >= 1; l--)
    console.log(
      `  layer ${l}: ${byLayer
        .filter(([, x]) => x === l)
        .map(([p]) => p)
        .join(' ')}`,
    );
}
