import type { Logger } from '../../machinery/logger.js';
import type { ApiRegistry } from '../api-registry.js';
import type { AdmissionPlugin } from './admission.js';
import { CertificateRequester, CertificateSubjectRestriction } from './certificates.js';
import { DefaultStorageClass } from './default-storage-class.js';
import { DefaultTolerationSeconds } from './default-toleration-seconds.js';
import { PersistentVolumeClaimResize } from './persistent-volume-claim-resize.js';
import { StorageObjectInUseProtection } from './storage-object-in-use-protection.js';
import { LimitRanger } from './limit-ranger.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { NodeRestriction } from './node-restriction.js';
import { PodSecurity } from './pod-security/pod-security.js';
import type { PodSecurityConfig } from './pod-security/pod-security-configuration.js';
import { Priority } from './priority.js';
import { MutatingAdmissionWebhook } from './webhook/mutating-webhook.js';
import { ValidatingAdmissionWebhook } from './webhook/validating-webhook.js';
import { WebhookConfigurations } from './webhook/webhook-configurations.js';
import type { ObjectConverter } from './webhook/webhook-dispatcher.js';
import { ValidatingAdmissionPolicyPlugin } from './policy/validating-admission-policy.js';
import { realClock } from '../../base/clock.js';
import { ResourceQuotaAdmission } from './resource-quota.js';

/** What admission plugins may read: the registry's stores (never storage directly). */
export interface AdmissionDeps {
  registry: ApiRegistry;
  /** The admission webhook configurations the API server watches (an empty, unwatched set when absent). */
  webhooks?: WebhookConfigurations;
  logger?: Logger;
  /** Converts a custom resource between its CRD's versions. */
  convert?: ObjectConverter;
}

export type AdmissionPluginFactory = (deps: AdmissionDeps) => AdmissionPlugin;

/**
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook, which upstream
 * runs after the built-in plugins (mutating webhooks see the object every
 * built-in mutation made; validating webhooks come last but for quota).
 */
export const WEBHOOK_ADMISSION_PLUGINS: readonly AdmissionPluginFactory[] = [
  (deps) => new MutatingAdmissionWebhook({ registry: deps.registry, webhooks: deps.webhooks ?? new WebhookConfigurations(), logger: deps.logger, convert: deps.convert }),
  (deps) => new ValidatingAdmissionWebhook({ registry: deps.registry, webhooks: deps.webhooks ?? new WebhookConfigurations(), logger: deps.logger, convert: deps.convert }),
];

/** Plugin configurations from `--admission-control-config-file`, parsed. */
export interface AdmissionPluginConfigs {
  podSecurity?: PodSecurityConfig;
}

/**
 * The admission plugins the API server runs, in order (upstream's
 * recommended order: NamespaceLifecycle, LimitRanger, ServiceAccount,
 * NodeRestriction, Priority, …, PodSecurity, …, ResourceQuota). A new plugin
 * is one line here; it runs in the mutating chain if it has `admit`, in the
 * validating chain if it has `validate`.
 */
export function builtinAdmissionPlugins(configs: AdmissionPluginConfigs = {}): readonly AdmissionPluginFactory[] {
  return [
    (deps) => new NamespaceLifecycle(() => deps.registry.namespaces),
    (deps) => new LimitRanger(() => deps.registry.lookup('', 'v1', 'limitranges')),
    (deps) => new NodeRestriction({ pods: () => deps.registry.lookup('', 'v1', 'pods')!, nodes: () => deps.registry.lookup('', 'v1', 'nodes')! }),
    (deps) => new Priority(() => deps.registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!),
    () => new DefaultTolerationSeconds(),
    (deps) => new DefaultStorageClass(() => deps.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')),
    () => new StorageObjectInUseProtection(),
    (deps) => new PersistentVolumeClaimResize(() => deps.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')),
    (deps) => new PodSecurity({ namespaces: () => deps.registry.namespaces, pods: () => deps.registry.lookup('', 'v1', 'pods')! }, configs.podSecurity),
    () => new CertificateRequester(),
    () => new CertificateSubjectRestriction(),
    (deps) => new ValidatingAdmissionPolicyPlugin(() => deps.registry, realClock),
  ];
}

/** The built-in plugins with upstream's default configurations. */
export const BUILTIN_ADMISSION_PLUGINS: readonly AdmissionPluginFactory[] = builtinAdmissionPlugins();

/** ResourceQuota charges what every other plugin admitted, so it is the last validating plugin (as upstream). */
export const RESOURCE_QUOTA_PLUGIN: AdmissionPluginFactory = (deps) => new ResourceQuotaAdmission(() => deps.registry.lookup('', 'v1', 'resourcequotas'));

/** The built-in plugins, then the webhooks, then ResourceQuota: the default chain. */
export const ADMISSION_PLUGINS: readonly AdmissionPluginFactory[] = [...BUILTIN_ADMISSION_PLUGINS, ...WEBHOOK_ADMISSION_PLUGINS, RESOURCE_QUOTA_PLUGIN];
