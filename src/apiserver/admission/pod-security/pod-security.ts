import type { Namespace, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { asKind } from '../../../api/object.js';
import { internalError } from '../../../machinery/api-error.js';
import { invalid } from '../../../machinery/invalid.js';
import type { RegistryStore } from '../../registry/registry-store.js';
import type { AdmissionAttributes, Operation, ValidatingAdmission } from '../admission.js';
import { admissionForbidden } from '../forbidden.js';
import { aggregate, Evaluator, type AggregateResult } from './evaluator.js';
import { compareLevels, compareVersions, DEFAULT_POLICY, LABEL_PREFIX, levelVersionString, policyToEvaluate, sameLevelVersion, type LevelVersion, type Policy } from './levels.js';
import type { PodSecurityConfig, PodSecurityExemptions } from './pod-security-configuration.js';
import { isPodController, podTemplateOf } from './pod-template.js';

/** Pod subresources that cannot change the pod spec (upstream's ignoredPodSubresources). */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** Upstream's audit annotation for a request PodSecurity let through unevaluated: `namespace`, `user` or `runtimeClass`. */
const EXEMPT_ANNOTATION = 'pod-security.kubernetes.io/exempt';
const NO_EXEMPTIONS: PodSecurityExemptions = { usernames: [], runtimeClasses: [], namespaces: [] };

/** Upstream checks at most this many existing pods when a namespace's enforce level tightens. */
const MAX_PODS_TO_CHECK = 3000;

export interface PodSecurityStores {
  namespaces: () => RegistryStore;
  pods: () => RegistryStore;
}

/**
 * PodSecurity admission (upstream's built-in Pod Security Admission): the
 * namespace's `pod-security.kubernetes.io/{enforce,audit,warn}[-version]`
 * labels pick a Pod Security Standards level per mode. A pod that violates
 * the enforce level is refused (403); the warn level's violations come back
 * as `Warning` headers; the audit level's as audit annotations. Workload
 * resources (Deployment, Job, …) are checked on their pod template for warn
 * and audit only. Namespace labels are validated, and tightening a
 * namespace's enforce level warns about the existing pods that violate it.
 * The admission configuration's PodSecurityConfiguration sets the defaults
 * and exempts usernames, runtime classes and namespaces, as upstream.
 */
export class PodSecurity implements ValidatingAdmission {
  readonly name = 'PodSecurity';
  private readonly evaluator = new Evaluator();
  private readonly defaults: Policy;
  private readonly exemptions: PodSecurityExemptions;

  constructor(
    private readonly stores: PodSecurityStores,
    config: Partial<PodSecurityConfig> = {},
  ) {
    this.defaults = config.defaults ?? DEFAULT_POLICY;
    this.exemptions = config.exemptions ?? NO_EXEMPTIONS;
  }

  private exempt(attrs: AdmissionAttributes): boolean {
    const why = attrs.namespace && this.exemptions.namespaces.includes(attrs.namespace) ? 'namespace' : attrs.user.name && this.exemptions.usernames.includes(attrs.user.name) ? 'user' : undefined;
    if (why) attrs.addAuditAnnotation?.(EXEMPT_ANNOTATION, why);
    return why !== undefined;
  }

  private exemptRuntimeClass(spec: PodSpec | undefined): boolean {
    return Boolean(spec?.runtimeClassName && this.exemptions.runtimeClasses.includes(spec.runtimeClassName));
  }

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (!attrs.object) return;
    if (group === '' && resource === 'namespaces') return this.validateNamespace(attrs);
    if (group === '' && resource === 'pods') {
      if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource)) return;
      if (this.exempt(attrs)) return;
      const pod = asKind<Pod>(attrs.object);
      if (attrs.operation === 'UPDATE' && attrs.oldObject && !isSignificantPodUpdate(pod, asKind<Pod>(attrs.oldObject))) return;
      const policy = await this.namespacePolicy(attrs);
      if (policy.errors === 0 && policy.policy.enforce.level === 'privileged' && policy.policy.warn.level === 'privileged' && policy.policy.audit.level === 'privileged') return;
      return this.evaluate(attrs, policy.policy, pod.metadata, pod.spec, true);
    }
    if (attrs.subresource || !isPodController(group, resource)) return;
    if (this.exempt(attrs)) return;
    const policy = await this.namespacePolicy(attrs);
    if (policy.errors === 0 && policy.policy.warn.level === 'privileged' && policy.policy.audit.level === 'privileged') return;
    const template = podTemplateOf(group, resource, attrs.object);
    if (!template?.metadata && !template?.spec) return;
    return this.evaluate(attrs, policy.policy, template.metadata, template.spec, false);
  }

  private async namespacePolicy(attrs: AdmissionAttributes): Promise<{ policy: Policy; errors: number }> {
    let ns: Namespace;
    try {
      ns = asKind<Namespace>(await this.stores.namespaces().getShared('', attrs.namespace));
    } catch {
      throw internalError(`failed to lookup namespace "${attrs.namespace}"`);
    }
    const { policy, errors } = policyToEvaluate(ns.metadata?.labels, this.defaults);
    return { policy, errors: errors.length };
  }

  /** Enforce (pods only), then audit, then warn, reusing the evaluation of an equal level and version. */
  private evaluate(attrs: AdmissionAttributes, policy: Policy, meta: ObjectMeta | undefined, spec: PodSpec | undefined, enforce: boolean): void {
    if (this.exemptRuntimeClass(spec)) {
      attrs.addAuditAnnotation?.(EXEMPT_ANNOTATION, 'runtimeClass');
      return;
    }
    const cache: { lv: LevelVersion; result: AggregateResult }[] = [];
    const resultFor = (lv: LevelVersion): AggregateResult => {
      const hit = cache.find((c) => sameLevelVersion(c.lv, lv));
      if (hit) return hit.result;
      const result = aggregate(this.evaluator.evaluate(lv, meta, spec));
      cache.push({ lv, result });
      return result;
    };
    if (enforce) {
      attrs.addAuditAnnotation?.('pod-security.kubernetes.io/enforce-policy', levelVersionString(policy.enforce));
      const result = resultFor(policy.enforce);
      if (!result.allowed) {
        this.audit(attrs, policy, resultFor);
        throw admissionForbidden(attrs, `violates PodSecurity "${levelVersionString(policy.enforce)}": ${result.forbiddenDetail}`);
      }
    }
    this.audit(attrs, policy, resultFor);
    const warn = resultFor(policy.warn);
    if (!warn.allowed) attrs.warn?.(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${warn.forbiddenDetail}`);
  }

  private audit(attrs: AdmissionAttributes, policy: Policy, resultFor: (lv: LevelVersion) => AggregateResult): void {
    const result = resultFor(policy.audit);
    if (!result.allowed) {
      attrs.addAuditAnnotation?.('pod-security.kubernetes.io/audit-violations', `would violate PodSecurity "${levelVersionString(policy.audit)}": ${result.forbiddenDetail}`);
    }
  }

  private async validateNamespace(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource) return;
    const ns = asKind<Namespace>(attrs.object!);
    const next = policyToEvaluate(ns.metadata?.labels, this.defaults);
    const name = ns.metadata?.name ?? attrs.name;
    const exempt = this.exemptions.namespaces.includes(name);
    if (attrs.operation === 'CREATE') {
      if (next.errors.length > 0) throw invalid({ group: '', kind: 'Namespace' }, name, next.errors);
      if (exempt) this.warnExemptNamespace(attrs, name, next.policy, ns.metadata?.labels);
      return;
    }
    const old = policyToEvaluate(attrs.oldObject ? asKind<Namespace>(attrs.oldObject).metadata?.labels : undefined, this.defaults);
    if (next.errors.length > 0 && (old.errors.length === 0 || JSON.stringify(next.errors) !== JSON.stringify(old.errors))) {
      throw invalid({ group: '', kind: 'Namespace' }, ns.metadata?.name ?? attrs.name, next.errors);
    }
    const [enforce, before] = [next.policy.enforce, old.policy.enforce];
    if (sameLevelVersion(enforce, before) || enforce.level === 'privileged') return;
    if (compareVersions(enforce.version, before.version) === 0 && compareLevels(enforce.level, before.level) < 1) return;
    if (exempt) return this.warnExemptNamespace(attrs, name, next.policy, ns.metadata?.labels);
    for (const w of await this.existingPodWarnings(ns.metadata?.name ?? attrs.name, enforce)) attrs.warn?.(w);
  }

  /** Upstream's exemptNamespaceWarning: labels asking for more than privileged (and the defaults) on an exempt namespace are ignored, and the client is told. */
  private warnExemptNamespace(attrs: AdmissionAttributes, name: string, policy: Policy, labels: Record<string, string> | undefined): void {
    const modes = ['enforce', 'audit', 'warn'] as const;
    if (modes.every((m) => policy[m].level === 'privileged')) return;
    const equivalent = modes.every((m) => policy[m].level === this.defaults[m].level && (policy[m].level === 'privileged' || compareVersions(policy[m].version, this.defaults[m].version) === 0));
    if (equivalent) return;
    const has = (k: string) => labels !== undefined && Object.prototype.hasOwnProperty.call(labels, k);
    const parts = modes
      .filter((m) => policy[m].level !== 'privileged' && (has(`${LABEL_PREFIX}${m}`) || has(`${LABEL_PREFIX}${m}-version`)))
      .map((m) => `${m}=${levelVersionString(policy[m])}`);
    attrs.warn?.(`namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`);
  }

  /** Upstream's EvaluatePodsInNamespace: one warning per distinct violation, naming the first pod and how many others. */
  private async existingPodWarnings(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: Pod[];
    try {
      pods = (await this.stores.pods().list(namespace, {})).items.map((i) => asKind<Pod>(i));
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    // pods of an exempt runtime class are not checked (upstream's prioritizePods)
    pods = pods.filter((p) => !this.exemptRuntimeClass(p.spec));
    const total = pods.length;
    const checked = pods.slice(0, MAX_PODS_TO_CHECK);
    const byReason = new Map<string, { first: string; count: number }>();
    for (const pod of checked) {
      const r = aggregate(this.evaluator.evaluate(enforce, pod.metadata, pod.spec));
      if (r.allowed) continue;
      const name = pod.metadata?.name ?? '';
      const seen = byReason.get(r.forbiddenReason);
      if (!seen) byReason.set(r.forbiddenReason, { first: name, count: 1 });
      else {
        seen.count++;
        if (name < seen.first) seen.first = name;
      }
    }
    const warnings: string[] = [];
    if (checked.length < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${total} existing pods`);
    if (byReason.size > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
    const podWarnings = [...byReason].map(([reason, { first, count }]) => {
      const others = count === 1 ? '' : count === 2 ? ' (and 1 other pod)' : ` (and ${count - 1} other pods)`;
      return `${first}${others}: ${reason}`;
    });
    return [...warnings, ...podWarnings.sort()];
  }
}

/** Only images (and the seccomp annotations) of a pod can change after creation; other updates need no evaluation. */
export function isSignificantPodUpdate(pod: Pod, old: Pod): boolean {
  const a = pod.metadata?.annotations ?? {};
  const oa = old.metadata?.annotations ?? {};
  const seccompPod = 'seccomp.security.alpha.kubernetes.io/pod';
  if (a[seccompPod] !== oa[seccompPod]) return true;
  const spec = pod.spec ?? { containers: [] };
  const oldSpec = old.spec ?? { containers: [] };
  const changed = (c: { name: string; image?: string }, o: { name: string; image?: string }) => {
    const key = `container.seccomp.security.alpha.kubernetes.io/${c.name}`;
    return c.image !== o.image || a[key] !== oa[key];
  };
  const pairs = (xs: { name: string; image?: string }[] = [], ys: { name: string; image?: string }[] = []) => xs.length !== ys.length || xs.some((c, i) => changed(c, ys[i]));
  if (pairs(spec.containers, oldSpec.containers) || pairs(spec.initContainers, oldSpec.initContainers)) return true;
  for (const c of spec.ephemeralContainers ?? []) {
    const o = (oldSpec.ephemeralContainers ?? []).find((x) => x.name === c.name);
    if (!o || changed(c, o)) return true;
  }
  return false;
}
