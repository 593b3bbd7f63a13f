import type { ApiRegistry } from '../api-registry.js';
import type { AdmissionPlugin } from './admission.js';
import { CertificateRequester, CertificateSubjectRestriction } from './certificates.js';
import { DefaultTolerationSeconds } from './default-toleration-seconds.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { NodeRestriction } from './node-restriction.js';
import { PodSecurity } from './pod-security/pod-security.js';
import { Priority } from './priority.js';

/** What admission plugins may read: the registry's stores (never storage directly). */
export interface AdmissionDeps {
  registry: ApiRegistry;
}

export type AdmissionPluginFactory = (deps: AdmissionDeps) => AdmissionPlugin;

/**
 * The admission plugins the API server runs, in order (upstream's
 * recommended order: NamespaceLifecycle, LimitRanger, ServiceAccount,
 * NodeRestriction, Priority, …, PodSecurity, …, ResourceQuota). A new plugin
 * is one line here; it runs in the mutating chain if it has `admit`, in the
 * validating chain if it has `validate`.
 */
export const ADMISSION_PLUGINS: readonly AdmissionPluginFactory[] = [
  (deps) => new NamespaceLifecycle(() => deps.registry.namespaces),
  (deps) => new NodeRestriction({ pods: () => deps.registry.lookup('', 'v1', 'pods')!, nodes: () => deps.registry.lookup('', 'v1', 'nodes')! }),
  (deps) => new Priority(() => deps.registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!),
  () => new DefaultTolerationSeconds(),
  (deps) => new PodSecurity({ namespaces: () => deps.registry.namespaces, pods: () => deps.registry.lookup('', 'v1', 'pods')! }),
  () => new CertificateRequester(),
  () => new CertificateSubjectRestriction(),
];
