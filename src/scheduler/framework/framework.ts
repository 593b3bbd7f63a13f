import type { CycleState } from './cycle-state.js';
import type {
  BindPlugin, ClusterEvent, EnqueueExtensions, FilterPlugin, FilterRunner, Handle, NodeScore, Plugin, PluginArgs,
  PermitPlugin, PostBindPlugin, PostFilterPlugin, PostFilterResult, PreBindPlugin, PreFilterPlugin, PreScorePlugin,
  Registry, ReservePlugin, ScorePlugin,
} from './interface.js';
import { MAX_NODE_SCORE } from './interface.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';
import { Code, Status } from './status.js';
import { recordingSpan } from '../../trace/spans.js';
import { WaitingPod } from './waiting-pod.js';

export const EXTENSION_POINTS = ['preFilter', 'filter', 'postFilter', 'preScore', 'score', 'reserve', 'permit', 'preBind', 'bind', 'postBind'] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

/** The method that marks a plugin as implementing an extension point. */
const METHOD: Record<ExtensionPoint, string> = {
  preFilter: 'preFilter', filter: 'filter', postFilter: 'postFilter', preScore: 'preScore', score: 'score',
  reserve: 'reserve', permit: 'permit', preBind: 'preBind', bind: 'bind', postBind: 'postBind',
};

export interface PluginRef {
  name: string;
  weight?: number;
}

/** A resolved profile: which plugins run at each point, their weights and args. */
export interface ProfilePlugins {
  points: Record<ExtensionPoint, PluginRef[]>;
  args: Record<string, PluginArgs>;
}

export class UnknownPluginError extends Error {
  override readonly name = 'UnknownPluginError';
  constructor(readonly plugin: string) {
    super(`plugin "${plugin}" is not registered`);
  }
}

function implementsPoint(p: Plugin, point: ExtensionPoint): boolean {
  return typeof (p as unknown as Record<string, unknown>)[METHOD[point]] === 'function';
}

/**
 * Runs one profile's plugins at each extension point. Filter and Score are
 * synchronous: a scheduling cycle reads the cache without yielding, so the
 * cache cannot change under it; only binding-cycle points are async.
 */
export class Framework implements FilterRunner {
  readonly preFilter: PreFilterPlugin[] = [];
  readonly filter: FilterPlugin[] = [];
  readonly postFilter: PostFilterPlugin[] = [];
  readonly preScore: PreScorePlugin[] = [];
  readonly score: { plugin: ScorePlugin; weight: number }[] = [];
  readonly reserve: ReservePlugin[] = [];
  readonly permit: PermitPlugin[] = [];
  readonly preBind: PreBindPlugin[] = [];
  readonly bind: BindPlugin[] = [];
  readonly postBind: PostBindPlugin[] = [];
  private readonly plugins = new Map<string, Plugin>();
  private readonly waiting = new Map<string, WaitingPod>();

  constructor(readonly profileName: string, registry: Registry, profile: ProfilePlugins, handle: Omit<Handle, 'framework'>) {
    const fullHandle: Handle = { ...handle, framework: () => this };
    for (const point of EXTENSION_POINTS) {
      for (const ref of profile.points[point]) {
        let p = this.plugins.get(ref.name);
        if (!p) {
          const factory = registry[ref.name];
          if (!factory) throw new UnknownPluginError(ref.name);
          p = factory(profile.args[ref.name] ?? {}, fullHandle);
          this.plugins.set(ref.name, p);
        }
        if (!implementsPoint(p, point)) continue;
        if (point === 'score') this.score.push({ plugin: p as ScorePlugin, weight: ref.weight ?? 1 });
        else (this[point] as Plugin[]).push(p);
      }
    }
  }

  pluginNames(): string[] {
    return [...this.plugins.keys()];
  }

  /** Plugins interested in each cluster event, for re-queueing rejected pods. */
  clusterEvents(): Map<string, readonly ClusterEvent[]> {
    const out = new Map<string, readonly ClusterEvent[]>();
    for (const [name, p] of this.plugins) {
      const ext = p as Partial<EnqueueExtensions>;
      if (typeof ext.events === 'function') out.set(name, ext.events());
    }
    return out;
  }

  runPreFilterPlugins(state: CycleState, pod: PodInfo): Status {
    for (const p of this.preFilter) {
      const s = guard(p, () => p.preFilter(state, pod));
      if (s.isSkip()) state.skipFilter.add(p.name);
      else if (!s.isSuccess()) return s;
    }
    return Status.success();
  }

  /** Called for every node of every attempt: no closure per plugin call, unlike the other points. */
  runFilterPlugins(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const skip = state.skipFilter;
    for (const p of this.filter) {
      if (skip.size > 0 && skip.has(p.name)) continue;
      let s: Status | undefined;
      try {
        s = p.filter(state, pod, node);
      } catch (err) {
        return Status.error(err).withPlugin(p.name);
      }
      if (s && s.code !== Code.Success) {
        // a traced scheduling cycle records each plugin's rejection
        recordingSpan()?.addEvent('filter', { 'skiff.plugin': p.name, 'k8s.node.name': node.name, 'skiff.verdict': Code[s.code] ?? String(s.code), 'skiff.reason': s.message() });
        return s.withPlugin(p.name);
      }
    }
    return Status.success();
  }

  async runPostFilterPlugins(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): Promise<PostFilterResult> {
    const messages: string[] = [];
    for (const p of this.postFilter) {
      let r: PostFilterResult;
      try {
        r = await p.postFilter(state, pod, statuses);
      } catch (err) {
        return { status: Status.error(err).withPlugin(p.name) };
      }
      r.status.withPlugin(p.name);
      if (r.status.isSuccess() || r.status.code === Code.Error) return r;
      messages.push(r.status.message());
    }
    return { status: new Status(Code.Unschedulable, messages.filter(Boolean)) };
  }

  runPreScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Status {
    for (const p of this.preScore) {
      const s = guard(p, () => p.preScore(state, pod, nodes));
      if (s.isSkip()) state.skipScore.add(p.name);
      else if (!s.isSuccess()) return s;
    }
    return Status.success();
  }

  /** Weighted sum of normalized scores per node, in the order of `nodes`. */
  runScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): NodeScore[] {
    const totals: NodeScore[] = nodes.map((n) => ({ name: n.name, score: 0 }));
    for (const { plugin, weight } of this.score) {
      if (state.skipScore.has(plugin.name)) continue;
      const scores: NodeScore[] = nodes.map((n) => ({ name: n.name, score: plugin.score(state, pod, n) }));
      plugin.normalizeScore?.(state, pod, scores);
      recordingSpan()?.addEvent('score', { 'skiff.plugin': plugin.name, 'skiff.weight': weight, 'skiff.scores': scores.slice(0, 20).map((x) => `${x.name}=${x.score}`).join(',') });
      for (let i = 0; i < scores.length; i++) {
        const s = scores[i].score;
        if (!(s >= 0 && s <= MAX_NODE_SCORE)) throw new RangeError(`plugin ${plugin.name} returned score ${s} for node ${scores[i].name}`);
        totals[i].score += s * weight;
      }
    }
    return totals;
  }

  runReservePluginsReserve(state: CycleState, pod: PodInfo, nodeName: string): Status {
    for (const p of this.reserve) {
      const s = guard(p, () => p.reserve(state, pod, nodeName));
      if (!s.isSuccess()) return s;
    }
    return Status.success();
  }

  runReservePluginsUnreserve(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (const p of [...this.reserve].reverse()) guard(p, () => (p.unreserve(state, pod, nodeName), undefined));
  }

  /** Success, a rejection, or Wait (the pod is then parked until waitOnPermit settles). */
  runPermitPlugins(state: CycleState, pod: PodInfo, nodeName: string): Status {
    const timeouts = new Map<string, number>();
    for (const p of this.permit) {
      let r: ReturnType<PermitPlugin['permit']>;
      try {
        r = p.permit(state, pod, nodeName);
      } catch (err) {
        return Status.error(err).withPlugin(p.name);
      }
      const s = r.status ?? Status.success();
      if (s.code === Code.Wait) timeouts.set(p.name, Math.min(r.timeoutMs ?? 15 * 60_000, 15 * 60_000));
      else if (!s.isSuccess()) return s.withPlugin(p.name);
    }
    if (timeouts.size === 0) return Status.success();
    this.waiting.set(pod.pod.metadata?.uid ?? pod.key, new WaitingPod(timeouts));
    return new Status(Code.Wait);
  }

  /** The permit gate for a pod; success at once if no plugin asked it to wait. */
  async waitOnPermit(pod: PodInfo): Promise<Status> {
    const id = pod.pod.metadata?.uid ?? pod.key;
    const w = this.waiting.get(id);
    if (!w) return Status.success();
    try {
      return await w.result;
    } finally {
      this.waiting.delete(id);
    }
  }

  getWaitingPod(uid: string): WaitingPod | undefined {
    return this.waiting.get(uid);
  }

  async runPreBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status> {
    for (const p of this.preBind) {
      const s = await guardAsync(p, () => p.preBind(state, pod, nodeName));
      if (!s.isSuccess()) return s;
    }
    return Status.success();
  }

  async runBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status> {
    for (const p of this.bind) {
      const s = await guardAsync(p, () => p.bind(state, pod, nodeName));
      if (!s.isSkip()) return s;
    }
    return new Status(Code.Error, ['no bind plugin bound the pod']);
  }

  runPostBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (const p of this.postBind) guard(p, () => (p.postBind(state, pod, nodeName), undefined));
  }
}

function guard(p: Plugin, fn: () => Status | undefined): Status {
  try {
    return (fn() ?? Status.success()).withPlugin(p.name);
  } catch (err) {
    return Status.error(err).withPlugin(p.name);
  }
}

async function guardAsync(p: Plugin, fn: () => Promise<Status | undefined>): Promise<Status> {
  try {
    return ((await fn()) ?? Status.success()).withPlugin(p.name);
  } catch (err) {
    return Status.error(err).withPlugin(p.name);
  }
}
