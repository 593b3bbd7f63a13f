import type { AdmissionRuleWithOperations } from '../validation/admission-registration.js';
import type { MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';

/** Upstream's SetDefaults_ValidatingWebhook (and the shared parts of _MutatingWebhook, _Rule, _ServiceReference). */
function setWebhookDefaults(hook: ValidatingWebhook): void {
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= 10;
  for (const rule of (hook.rules ?? []) as AdmissionRuleWithOperations[]) rule.scope ??= '*';
  setClientConfigDefaults(hook.clientConfig);
}

/** A Service reference's port defaults to 443 (webhooks, CRD conversion). */
export function setClientConfigDefaults(cc: WebhookClientConfig | undefined): void {
  if (cc?.service) cc.service.port ??= 443;
}

export function setValidatingWebhookConfigurationDefaults(config: ValidatingWebhookConfiguration): void {
  for (const hook of config.webhooks ?? []) setWebhookDefaults(hook);
}

export function setMutatingWebhookConfigurationDefaults(config: MutatingWebhookConfiguration): void {
  for (const hook of config.webhooks ?? []) {
    setWebhookDefaults(hook);
    hook.reinvocationPolicy ??= 'Never';
  }
}
