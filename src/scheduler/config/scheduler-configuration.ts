import { parse } from 'yaml';
import { EXTENSION_POINTS, type ExtensionPoint, type PluginRef, type ProfilePlugins } from '../framework/framework.js';
import type { PluginArgs } from '../framework/interface.js';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** Upstream's default plugin set (multiPoint), in order, with score weights. */
export const DEFAULT_PLUGINS: readonly PluginRef[] = [
  { name: 'NodeUnschedulable' },
  { name: 'NodeName' },
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodePorts' },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeBinding' },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
];

export interface SchedulerProfile {
  schedulerName: string;
  plugins: ProfilePlugins;
  /** 0 or unset: the adaptive default. */
  percentageOfNodesToScore?: number;
}

export interface SchedulerConfiguration {
  profiles: SchedulerProfile[];
  percentageOfNodesToScore?: number;
  leaderElection: { leaderElect: boolean; resourceNamespace: string; resourceName: string };
}

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

interface PluginSet {
  enabled?: { name: string; weight?: number }[];
  disabled?: { name: string }[];
}

type RawPlugins = Partial<Record<ExtensionPoint | 'multiPoint' | 'queueSort', PluginSet>>;

interface RawProfile {
  schedulerName?: string;
  percentageOfNodesToScore?: number;
  plugins?: RawPlugins;
  pluginConfig?: { name: string; args?: PluginArgs }[];
}

function applySet(list: PluginRef[], set: PluginSet | undefined): PluginRef[] {
  if (!set) return list;
  const disabled = new Set((set.disabled ?? []).map((d) => d.name));
  let out = disabled.has('*') ? [] : list.filter((p) => !disabled.has(p.name));
  for (const e of set.enabled ?? []) {
    const existing = out.find((p) => p.name === e.name);
    const weight = e.weight || existing?.weight;
    out = out.filter((p) => p.name !== e.name);
    out.push({ name: e.name, weight });
  }
  return out;
}

/** Resolves a profile's plugins the way upstream merges multiPoint with per-point sets. */
export function resolveProfilePlugins(raw: RawPlugins = {}, pluginConfig: RawProfile['pluginConfig'] = []): ProfilePlugins {
  const multi = applySet([...DEFAULT_PLUGINS], raw.multiPoint);
  const points = {} as Record<ExtensionPoint, PluginRef[]>;
  for (const point of EXTENSION_POINTS) points[point] = applySet(multi.map((p) => ({ ...p })), raw[point]);
  const args: Record<string, PluginArgs> = {};
  for (const c of pluginConfig ?? []) args[c.name] = c.args ?? {};
  return { points, args };
}

export function defaultProfile(schedulerName = DEFAULT_SCHEDULER_NAME): SchedulerProfile {
  return { schedulerName, plugins: resolveProfilePlugins() };
}

export function defaultConfiguration(): SchedulerConfiguration {
  return { profiles: [defaultProfile()], leaderElection: { leaderElect: true, resourceNamespace: 'kube-system', resourceName: 'kube-scheduler' } };
}

/** Parses a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), the subset skiff honours. */
export function parseSchedulerConfiguration(text: string): SchedulerConfiguration {
  let doc: Record<string, unknown>;
  try {
    doc = (parse(text) ?? {}) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigurationError(`invalid YAML: ${(err as Error).message}`);
  }
  if (doc.kind !== undefined && doc.kind !== 'KubeSchedulerConfiguration') throw new ConfigurationError(`unexpected kind ${String(doc.kind)}`);
  const apiVersion = doc.apiVersion as string | undefined;
  if (apiVersion !== undefined && !/^kubescheduler\.config\.k8s\.io\/v1(beta[0-9]+)?$/.test(apiVersion)) throw new ConfigurationError(`unsupported apiVersion ${apiVersion}`);
  const pct = doc.percentageOfNodesToScore as number | undefined;
  if (pct !== undefined && (pct < 0 || pct > 100)) throw new ConfigurationError('percentageOfNodesToScore must be between 0 and 100');
  const rawProfiles = (doc.profiles as RawProfile[] | undefined) ?? [{}];
  const names = new Set<string>();
  const profiles = rawProfiles.map((p) => {
    const schedulerName = p.schedulerName || DEFAULT_SCHEDULER_NAME;
    if (names.has(schedulerName)) throw new ConfigurationError(`duplicate profile ${schedulerName}`);
    names.add(schedulerName);
    if (p.percentageOfNodesToScore !== undefined && (p.percentageOfNodesToScore < 0 || p.percentageOfNodesToScore > 100)) throw new ConfigurationError(`profile ${schedulerName}: percentageOfNodesToScore must be between 0 and 100`);
    return { schedulerName, percentageOfNodesToScore: p.percentageOfNodesToScore, plugins: resolveProfilePlugins(p.plugins, p.pluginConfig) };
  });
  const le = (doc.leaderElection ?? {}) as { leaderElect?: boolean; resourceNamespace?: string; resourceName?: string };
  return {
    profiles,
    percentageOfNodesToScore: pct,
    leaderElection: { leaderElect: le.leaderElect ?? true, resourceNamespace: le.resourceNamespace ?? 'kube-system', resourceName: le.resourceName ?? 'kube-scheduler' },
  };
}

/**
 * How many feasible nodes to find before scoring (upstream's
 * numFeasibleNodesToFind): all below 100 nodes; otherwise the percentage,
 * adaptive when unset (50% minus 1% per 125 nodes, at least 5%), never
 * fewer than 100.
 */
export function numFeasibleNodesToFind(percentage: number | undefined, numAllNodes: number): number {
  const MIN_NODES = 100;
  if (numAllNodes < MIN_NODES) return numAllNodes;
  let pct = percentage ?? 0;
  if (pct === 0) pct = Math.max(5, 50 - Math.floor(numAllNodes / 125));
  if (pct >= 100) return numAllNodes;
  return Math.max(MIN_NODES, Math.floor((numAllNodes * pct) / 100));
}
