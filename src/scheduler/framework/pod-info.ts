import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject, type Selector } from '../../machinery/labels/index.js';
import type { Labels } from '../../machinery/labels/index.js';
import { computePodRequests, type Resource } from './resource.js';

/** Looks up a namespace's labels (for affinity terms with a namespaceSelector). */
export type NamespaceLabels = (namespace: string) => Labels;

/** A pod (anti-)affinity term with its selectors compiled once. */
export class AffinityTerm {
  readonly selector: Selector;
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector?: Selector;
  readonly topologyKey: string;

  constructor(term: PodAffinityTerm, podNamespace: string, readonly weight = 0) {
    this.selector = labelSelectorFromObject(term.labelSelector);
    this.topologyKey = term.topologyKey;
    const listed = term.namespaces ?? [];
    if (term.namespaceSelector) this.namespaceSelector = labelSelectorFromObject(term.namespaceSelector);
    // No namespaces and no namespaceSelector: the pod's own namespace.
    this.namespaces = new Set(listed.length === 0 && !term.namespaceSelector ? [podNamespace] : listed);
  }

  matches(pod: Pod, nsLabels?: NamespaceLabels): boolean {
    const ns = pod.metadata?.namespace ?? 'default';
    const inNamespace =
      this.namespaces.has(ns) ||
      (this.namespaceSelector !== undefined && (this.namespaceSelector.empty() || this.namespaceSelector.matches(nsLabels?.(ns))));
    return inNamespace && this.selector.matches(pod.metadata?.labels);
  }
}

function terms(list: PodAffinityTerm[] | undefined, ns: string): AffinityTerm[] {
  return (list ?? []).map((t) => new AffinityTerm(t, ns));
}

function weighted(list: WeightedPodAffinityTerm[] | undefined, ns: string): AffinityTerm[] {
  return (list ?? []).map((w) => new AffinityTerm(w.podAffinityTerm, ns, w.weight));
}

/** The priority the scheduler orders and preempts by. */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** A pod plus everything derived from it that the scheduler reads many times. */
export class PodInfo {
  readonly key: string;
  readonly requests: Resource;
  /** Requests with upstream's non-zero defaults, used for scoring. */
  readonly nonZeroRequests: Resource;
  readonly requiredAffinity: AffinityTerm[];
  readonly requiredAntiAffinity: AffinityTerm[];
  readonly preferredAffinity: AffinityTerm[];
  readonly preferredAntiAffinity: AffinityTerm[];
  readonly priority: number;

  constructor(readonly pod: Pod) {
    this.key = podKey(pod);
    this.requests = computePodRequests(pod);
    this.nonZeroRequests = computePodRequests(pod, true);
    const ns = pod.metadata?.namespace ?? 'default';
    const a = pod.spec?.affinity;
    this.requiredAffinity = terms(a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, ns);
    this.requiredAntiAffinity = terms(a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, ns);
    this.preferredAffinity = weighted(a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, ns);
    this.preferredAntiAffinity = weighted(a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, ns);
    this.priority = podPriority(pod);
  }

  hasAffinity(): boolean {
    return this.requiredAffinity.length + this.requiredAntiAffinity.length + this.preferredAffinity.length + this.preferredAntiAffinity.length > 0;
  }
}
