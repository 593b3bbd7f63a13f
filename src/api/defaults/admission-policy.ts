import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';

/** Upstream's SetDefaults_MatchResources (and _NamedRuleWithOperations' scope). */
function setMatchResourcesDefaults(m: MatchResources | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const rules of [m.resourceRules, m.excludeResourceRules]) {
    for (const rule of (rules ?? []) as { scope?: string }[]) rule.scope ??= '*';
  }
}

/** Upstream's SetDefaults_ValidatingAdmissionPolicySpec: failurePolicy Fail, match defaults. */
export function setValidatingAdmissionPolicyDefaults(p: ValidatingAdmissionPolicy): void {
  if (!p.spec) return;
  p.spec.failurePolicy ??= 'Fail';
  setMatchResourcesDefaults(p.spec.matchConstraints);
}

export function setValidatingAdmissionPolicyBindingDefaults(b: ValidatingAdmissionPolicyBinding): void {
  setMatchResourcesDefaults(b.spec?.matchResources);
}
