/**
 * `node --max-old-space-size=12000 --import tsx bench/heap-summary.ts FILE.heapsnapshot [top]`:
 * what a V8 heap snapshot holds (see bench/memory-probe.ts for taking one
 * from a running component). Prints self size by constructor, the objects
 * that retain the most (their dominator-tree retained size, with the path
 * from the root), retained size by owner and property name, ArrayBuffer
 * backing stores by size (8 KiB ones are Node's Buffer pool slabs) and the
 * largest groups of strings by their first 40 characters.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node --import tsx bench/heap-summary.ts FILE.heapsnapshot [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { meta } = snap.snapshot;
const { nodes, edges, strings } = snap;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const [fType, fName, fSelf, fEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const N = nodes.length / NF;
const mib = (n: number): string => (n / 2 ** 20).toFixed(1).padStart(8);

const firstEdge = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + fEdges] * EF;
}
firstEdge[N] = edges.length;
const selfSize = (i: number): number => nodes[i * NF + fSelf];
const label = (i: number): string => {
  const type = nodeTypes[nodes[i * NF + fType]];
  return type === 'object' || type === 'native' ? `${strings[nodes[i * NF + fName]]}`.slice(0, 80) : `(${type})`;
};
const strong = (e: number): boolean => {
  const t = edgeTypes[edges[e + eType]];
  return t !== 'weak' && t !== 'shortcut';
};
const edgeName = (e: number): string => {
  const t = edgeTypes[edges[e + eType]];
  return t === 'element' || t === 'hidden' ? '[]' : String(strings[edges[e + eName]]);
};

function printTop(title: string, groups: Map<string, [number, number]>): void {
  process.stdout.write(`--- ${title}\n`);
  for (const [k, [size, count]] of [...groups].sort((a, b) => b[1][0] - a[1][0]).slice(0, top)) process.stdout.write(`${mib(size)} MiB ${String(count).padStart(9)}  ${k}\n`);
}
function add(groups: Map<string, [number, number]>, key: string, size: number): void {
  const g = groups.get(key) ?? [0, 0];
  g[0] += size;
  g[1]++;
  groups.set(key, g);
}

let total = 0;
const bySelf = new Map<string, [number, number]>();
const buffers = new Map<string, [number, number]>();
const stringGroups = new Map<string, [number, number]>();
for (let i = 0; i < N; i++) {
  total += selfSize(i);
  add(bySelf, label(i), selfSize(i));
  if (label(i) === 'system / JSArrayBufferData') {
    const s = selfSize(i);
    add(buffers, s === 8192 ? '8 KiB (pool slabs)' : s < 4096 ? '< 4 KiB' : s < 8192 ? '4-8 KiB' : '> 8 KiB', s);
  }
  if (nodeTypes[nodes[i * NF + fType]] === 'string') add(stringGroups, JSON.stringify(strings[nodes[i * NF + fName]].slice(0, 40)), selfSize(i));
}
process.stdout.write(`${file}: ${N} nodes, ${mib(total).trim()} MiB\n`);
printTop('self size by constructor', bySelf);

// dominators (Cooper, Harvey, Kennedy) over a depth-first postorder from the root, strong edges only
const post = new Int32Array(N).fill(-1);
const order = new Int32Array(N);
const stack = new Int32Array(N);
const cursor = new Uint32Array(N);
const seen = new Uint8Array(N);
let count = 0;
let sp = 1;
seen[0] = 1;
cursor[0] = firstEdge[0];
while (sp > 0) {
  const v = stack[sp - 1];
  let pushed = false;
  for (let e = cursor[sp - 1]; e < firstEdge[v + 1]; e += EF) {
    const w = edges[e + eTo] / NF;
    if (!strong(e) || seen[w]) continue;
    seen[w] = 1;
    cursor[sp - 1] = e + EF;
    stack[sp] = w;
    cursor[sp] = firstEdge[w];
    sp++;
    pushed = true;
    break;
  }
  if (!pushed) {
    post[v] = count;
    order[count++] = v;
    sp--;
  }
}
const predStart = new Uint32Array(N + 1);
for (let v = 0; v < N; v++) if (seen[v]) for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) if (strong(e)) predStart[edges[e + eTo] / NF + 1]++;
for (let i = 0; i < N; i++) predStart[i + 1] += predStart[i];
const preds = new Int32Array(predStart[N]);
const fill = predStart.slice(0, N);
for (let v = 0; v < N; v++) if (seen[v]) for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) if (strong(e)) preds[fill[edges[e + eTo] / NF]++] = v;
const idom = new Int32Array(N).fill(-1);
idom[0] = 0;
for (let changed = true; changed; ) {
  changed = false;
  for (let k = count - 2; k >= 0; k--) {
    const b = order[k];
    let d = -1;
    for (let p = predStart[b]; p < predStart[b + 1]; p++) {
      let q = preds[p];
      if (idom[q] === -1) continue;
      if (d === -1) {
        d = q;
        continue;
      }
      let r = d;
      while (q !== r) {
        while (post[q] < post[r]) q = idom[q];
        while (post[r] < post[q]) r = idom[r];
      }
      d = q;
    }
    if (d !== -1 && idom[b] !== d) {
      idom[b] = d;
      changed = true;
    }
  }
}
const retained = new Float64Array(N);
for (let k = 0; k < count; k++) {
  const v = order[k];
  retained[v] += selfSize(v);
  if (v !== 0) retained[idom[v]] += retained[v];
}
// the edge by which each object's immediate dominator holds it
const viaEdge = new Int32Array(N).fill(-1);
for (let v = 0; v < N; v++) {
  if (!seen[v]) continue;
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) {
    const w = edges[e + eTo] / NF;
    if (w !== v && idom[w] === v && viaEdge[w] === -1) viaEdge[w] = e;
  }
}
const path = (v: number): string => {
  const parts: string[] = [];
  for (let x = v, depth = 0; x > 0 && depth < 8; x = idom[x], depth++) parts.unshift(`${label(idom[x])}.${viaEdge[x] >= 0 ? edgeName(viaEdge[x]) : '?'}`);
  return parts.join(' > ');
};
process.stdout.write(`--- objects retaining > 4 MiB (retained size, then the path of their dominators)\n`);
const big = [...order.subarray(0, count)].filter((v) => v !== 0 && retained[v] > 4 * 2 ** 20).sort((a, b) => retained[b] - retained[a]);
for (const v of big.slice(0, top)) process.stdout.write(`${mib(retained[v])} MiB  ${label(v)}  <= ${path(v)}\n`);
const byOwner = new Map<string, [number, number]>();
for (let k = 0; k < count; k++) {
  const v = order[k];
  if (v !== 0 && viaEdge[v] >= 0) add(byOwner, `${label(idom[v])} .${edgeName(viaEdge[v])} -> ${label(v)}`, retained[v]);
}
printTop('retained by owner .property -> object (nested entries overlap)', byOwner);
printTop('ArrayBuffer backing stores by size', buffers);
printTop('strings by their first 40 characters', stringGroups);
