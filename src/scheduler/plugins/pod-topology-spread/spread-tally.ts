import type { Selector } from '../../../machinery/labels/index.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { countMatching, selectorKey, type Constraint } from './topology-spread-constraint.js';

/** Each node's position in a node list, computed once per list and shared by every tally over it. */
const positions = new WeakMap<readonly NodeInfo[], Map<NodeInfo, number>>();

function positionsIn(list: readonly NodeInfo[]): Map<NodeInfo, number> {
  let p = positions.get(list);
  if (!p) positions.set(list, (p = new Map(list.map((ni, i) => [ni, i]))));
  return p;
}

/**
 * Matching pods per node and per value of one topology key, over every node
 * of the scheduler's node list, for one (namespace, selector, key, the keys a
 * counted node must carry): what PreScore sums for every pod of a workload.
 * Kept across attempts and brought up to date node by node: a node is
 * counted again only when its generation moved (a pod or its Node object
 * changed), so spreading a workload costs a generation check per node
 * instead of a count per node. A new node list (nodes added or removed)
 * recounts everything. Typed arrays keep a tally at ~16 bytes per node.
 */
export class SpreadTally {
  private list: readonly NodeInfo[] = [];
  private generations = new Float64Array(0);
  private counts = new Int32Array(0);
  /** Per node: the index of its topology value in `valueNames`, or -1 when it lacks a required key. */
  private valueOf = new Int32Array(0);
  private readonly valueNames: string[] = [];
  private readonly valueIndex = new Map<string, number>();
  private valueTotals: number[] = [];

  constructor(
    private readonly selector: Selector,
    private readonly namespace: string,
    private readonly key: string,
    private readonly requiredKeys: readonly string[],
  ) {}

  /** Brings the tally up to date with `list` (the scheduler's nodes). */
  update(list: readonly NodeInfo[]): void {
    if (list !== this.list || list.length !== this.counts.length) {
      this.list = list;
      this.generations = new Float64Array(list.length).fill(-1);
      this.counts = new Int32Array(list.length);
      this.valueOf = new Int32Array(list.length).fill(-1);
      this.valueTotals = this.valueTotals.map(() => 0);
    }
    const generations = this.generations;
    for (let i = 0; i < list.length; i++) {
      const ni = list[i];
      if (ni.generation !== generations[i]) this.recount(i, ni);
    }
  }

  /** Matching pods on nodes with this topology value (and every required key), as of the last update. */
  total(value: string): number | undefined {
    const v = this.valueIndex.get(value);
    return v === undefined ? undefined : this.valueTotals[v];
  }

  /** The node's matching pods as of the last update, if the node is unchanged since. */
  countOn(ni: NodeInfo): number | undefined {
    const i = positionsIn(this.list).get(ni);
    return i !== undefined && this.generations[i] === ni.generation ? this.counts[i] : undefined;
  }

  private recount(i: number, ni: NodeInfo): void {
    const old = this.valueOf[i];
    if (old >= 0) this.valueTotals[old] -= this.counts[i];
    const labels = ni.node?.metadata?.labels ?? {};
    let value: string | undefined = labels[this.key];
    for (const k of this.requiredKeys) if (!(k in labels)) value = undefined;
    let v = -1;
    let n = 0;
    if (value !== undefined) {
      v = this.valueIndex.get(value) ?? -1;
      if (v < 0) {
        v = this.valueNames.push(value) - 1;
        this.valueIndex.set(value, v);
        this.valueTotals.push(0);
      }
      n = countMatching(ni, this.selector, this.namespace);
      this.valueTotals[v] += n;
    }
    this.generations[i] = ni.generation;
    this.valueOf[i] = v;
    this.counts[i] = n;
  }
}

/** Tallies kept, least recently used first: enough for every workload a busy scheduler interleaves, bounded as workloads come and go. */
const MAX_TALLIES = 512;
const tallies = new Map<string, SpreadTally>();

/** The up-to-date tally of a constraint of a pod in `namespace` with `constraints`, over `list`. */
export function spreadTally(c: Constraint, namespace: string, constraints: readonly Constraint[], list: readonly NodeInfo[]): SpreadTally {
  const required = constraints.map((x) => x.topologyKey);
  const id = `${namespace}\0${selectorKey(c.selector)}\0${c.topologyKey}\0${required.join('\0')}`;
  let tally = tallies.get(id);
  if (tally) tallies.delete(id);
  else {
    tally = new SpreadTally(c.selector, namespace, c.topologyKey, required);
    if (tallies.size >= MAX_TALLIES) tallies.delete(tallies.keys().next().value!);
  }
  tallies.set(id, tally);
  tally.update(list);
  return tally;
}
