import type { Client } from '../../client/rest/client.js';
import type { SharedInformerFactory } from '../../client/cache/shared-informer-factory.js';
import type { CycleState } from './cycle-state.js';
import type { NodeInfo } from './node-info.js';
import type { NamespaceLabels, PodInfo } from './pod-info.js';
import type { Status } from './status.js';

/** Every plugin is only a name; what it does is the extension points it implements. */
export interface Plugin {
  readonly name: string;
}

export interface PreFilterPlugin extends Plugin {
  /** Once per attempt, before any Filter; Skip turns this plugin's Filter off for the attempt. */
  preFilter(state: CycleState, pod: PodInfo): Status | undefined;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined;
}

export interface PostFilterResult {
  status: Status;
  nominatedNodeName?: string;
}

export interface PostFilterPlugin extends Plugin {
  /** Runs when no node fits (e.g. preemption); `statuses` holds each node's rejection. */
  postFilter(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): Promise<PostFilterResult>;
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Status | undefined;
}

export interface NodeScore {
  name: string;
  score: number;
}

/** The range scores are normalized to. */
export const MAX_NODE_SCORE = 100;

export interface ScorePlugin extends Plugin {
  score(state: CycleState, pod: PodInfo, node: NodeInfo): number;
  /** Maps raw scores to [0, MAX_NODE_SCORE] in place. */
  normalizeScore?(state: CycleState, pod: PodInfo, scores: NodeScore[]): void;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: PodInfo, nodeName: string): Status | undefined;
  /** Must be idempotent: it may run even if reserve did not. */
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
}

export interface PermitResult {
  status?: Status;
  /** With Code.Wait: how long to wait for an allow before rejecting. */
  timeoutMs?: number;
}

export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: PodInfo, nodeName: string): PermitResult;
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined>;
}

export interface BindPlugin extends Plugin {
  /** Skip: let the next binder handle the pod. */
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/** Kinds of cluster change that may make a rejected pod schedulable. */
export type ClusterEventResource = 'Node' | 'Pod' | 'AssignedPod' | 'PersistentVolume' | 'PersistentVolumeClaim' | 'StorageClass' | 'PodDisruptionBudget' | 'Namespace';
export type ClusterEventAction = 'Add' | 'Update' | 'Delete';

export interface ClusterEvent {
  resource: ClusterEventResource;
  actions: readonly ClusterEventAction[];
}

export interface EnqueueExtensions extends Plugin {
  /** The events after which pods this plugin rejected are worth retrying. */
  events(): readonly ClusterEvent[];
}

/** Read access to the scheduler's view of nodes, shared by all plugins. */
export interface NodeInfoLister {
  list(): readonly NodeInfo[];
  get(name: string): NodeInfo | undefined;
  /** How many nodes hold an image (normalized name), for ImageLocality's spread factor. */
  imageNodeCount(image: string): number;
  /** Nodes with at least one pod that has (anti-)affinity terms: InterPodAffinity need not visit the rest. */
  havePodsWithAffinity(): readonly NodeInfo[];
  /** Nodes with at least one pod that has required anti-affinity terms. */
  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[];
}

/** What the framework runs, for plugins (preemption) that simulate scheduling. */
export interface FilterRunner {
  runPreFilterPlugins(state: CycleState, pod: PodInfo): Status;
  runFilterPlugins(state: CycleState, pod: PodInfo, node: NodeInfo): Status;
}

/** A pod waiting for a preemption to finish on a node. */
export interface Nominator {
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
}

/** What every plugin factory gets. */
export interface Handle {
  client: Client;
  informers: SharedInformerFactory;
  snapshot: NodeInfoLister;
  namespaceLabels: NamespaceLabels;
  nominator: Nominator;
  /** Set once the profile's framework is built. */
  framework(): FilterRunner;
  /** The scheduler's name, for field managers and events. */
  schedulerName: string;
}

export type PluginArgs = Record<string, unknown>;

export type PluginFactory = (args: PluginArgs, handle: Handle) => Plugin;

/** Plugins by name; the scheduler's only way to find one. */
export type Registry = Record<string, PluginFactory>;
