import type { Node, Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject, Requirement, selectorFromRequirements, type Selector } from '../../../machinery/labels/index.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { podMatchesNodeSelectorAndAffinity } from '../node-affinity/node-selector-match.js';
import { tolerationsTolerateTaint } from '../taint-toleration/toleration-match.js';

/** A spread constraint with its selector compiled and policies defaulted. */
export interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  minDomains: number;
  honorNodeAffinity: boolean;
  honorTaints: boolean;
}

/** Compiles constraints, folding matchLabelKeys into the selector with the pod's own values. */
export function compileConstraints(pod: Pod, list: readonly TopologySpreadConstraint[]): Constraint[] {
  const labels = pod.metadata?.labels ?? {};
  return list.map((c) => {
    let selector = labelSelectorFromObject(c.labelSelector);
    const keys = (c.matchLabelKeys ?? []).filter((k) => k in labels);
    if (keys.length > 0) selector = selectorFromRequirements([...selector.requirements(), ...keys.map((k) => Requirement.create(k, 'in', [labels[k]]))]);
    return {
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector,
      minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
      honorTaints: c.nodeTaintsPolicy === 'Honor',
    };
  });
}

/** Whether pods on this node count towards the constraint's domains for this pod. */
export function nodeCounts(c: Constraint, pod: Pod, node: Node): boolean {
  if (c.honorNodeAffinity && !podMatchesNodeSelectorAndAffinity(pod, node)) return false;
  if (c.honorTaints) {
    for (const t of node.spec?.taints ?? []) {
      if ((t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerationsTolerateTaint(pod.spec?.tolerations, t)) return false;
    }
  }
  return true;
}

/** Whether nodeCounts can ever say no for this pod: lets callers skip it per node. */
export function mayExcludeNodes(c: Constraint, pod: Pod): boolean {
  const spec = pod.spec;
  const hasSelector = spec?.nodeSelector !== undefined && Object.keys(spec.nodeSelector).length > 0;
  return c.honorTaints || (c.honorNodeAffinity && (hasSelector || spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution !== undefined));
}

/** Whether a label map has every one of the keys. */
export function hasKeys(labels: Readonly<Record<string, string>>, keys: readonly string[]): boolean {
  for (const k of keys) if (!(k in labels)) return false;
  return true;
}

export function hasAllKeys(node: Node, constraints: readonly Constraint[]): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const c of constraints) if (!(c.topologyKey in labels)) return false;
  return true;
}

/*
 * Per node: matching-pod counts by namespace and selector, valid while the
 * node's generation stands. Spreading one workload asks every node the same
 * question for each of its pods, and between two pods only the node the
 * last one landed on changed: a cached answer turns a scan of every pod in
 * the cluster per scheduling attempt into a look-up per node. The node's
 * live pods are grouped by namespace once per generation, so the first
 * question for a new selector (every workload's first pod, and every pod
 * on the node that just changed) reads only that namespace's pods.
 */
interface MatchEntry {
  generation: number;
  /** Per namespace, per selector key. */
  counts: Map<string, Map<string, number>>;
  byNamespace?: Map<string, PodInfo[]>;
}
const matchCache = new WeakMap<NodeInfo, MatchEntry>();
const selectorKeys = new WeakMap<Selector, string>();

/** A selector as a string that tells selectors apart (computed once per selector object). */
export function selectorKey(selector: Selector): string {
  let key = selectorKeys.get(selector);
  if (key === undefined) {
    // the empty selector (everything) and the null one (nothing) both print as ''
    const text = selector.toString();
    key = text !== '' ? text : selector.empty() ? '*' : '!';
    selectorKeys.set(selector, key);
  }
  return key;
}

function podsByNamespace(node: NodeInfo, entry: MatchEntry): Map<string, PodInfo[]> {
  if (entry.byNamespace) return entry.byNamespace;
  const byNamespace = new Map<string, PodInfo[]>();
  for (const p of node.pods) {
    const m = p.pod.metadata;
    if (!m || m.deletionTimestamp) continue;
    const ns = m.namespace ?? '';
    const list = byNamespace.get(ns);
    if (list) list.push(p);
    else byNamespace.set(ns, [p]);
  }
  return (entry.byNamespace = byNamespace);
}

/** Pods on the node in the pod's namespace matching the selector (terminating pods excluded). */
export function countMatching(node: NodeInfo, selector: Selector, namespace: string): number {
  if (node.pods.length === 0) return 0;
  let entry = matchCache.get(node);
  if (!entry || entry.generation !== node.generation) matchCache.set(node, (entry = { generation: node.generation, counts: new Map() }));
  const key = selectorKey(selector);
  let inNamespace = entry.counts.get(namespace);
  if (!inNamespace) entry.counts.set(namespace, (inNamespace = new Map()));
  const cached = inNamespace.get(key);
  if (cached !== undefined) return cached;
  let n = 0;
  for (const p of podsByNamespace(node, entry).get(namespace) ?? []) if (selector.matches(p.pod.metadata?.labels)) n++;
  inNamespace.set(key, n);
  return n;
}
