import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';
import { asKind, asObject } from '../../api/object.js';
import { ApiError } from '../../machinery/api-error.js';
import { addUsage, exceededNames, fromUsage, isZeroUsage, maskUsage, prettyPrint, subtractNonNegative, toUsage, type Usage } from '../../machinery/quota/resource-list.js';
import { matchingResources, podConstraints, quotaMatches, usageOf } from '../../machinery/quota/usage.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, Operation, ValidatingAdmission } from './admission.js';
import { admissionForbidden } from './forbidden.js';

/** How often a charge is retried after losing a race on a quota's status. */
const MAX_ATTEMPTS = 8;

/** Resources whose usage can grow on update (a Service's type and ports, a claim's size). */
const CHARGED_ON_UPDATE = new Set(['services', 'persistentvolumeclaims']);

/**
 * ResourceQuota admission (the last validating plugin, as upstream): a new
 * object is charged against every ResourceQuota of its namespace that covers
 * it (scopes); over a quota's `status.hard` it is 403 `exceeded quota: q,
 * requested: pods=1, used: pods=2, limited: pods=2`; a quota on cpu or memory
 * needs every container to state it (`failed quota: q: must specify
 * limits.cpu for: c`); a quota whose status the quota controller has not yet
 * filled for a resource refuses (`status unknown for quota`); one without
 * any status yet does not count (upstream reads `status.hard`). The charge is written to each
 * quota's `status.used` under its resourceVersion, all again on a conflict,
 * before the object is stored; the controller later recounts.
 */
export class ResourceQuotaAdmission implements ValidatingAdmission {
  readonly name = 'ResourceQuota';

  constructor(
    private readonly quotas: () => RegistryStore | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (attrs.subresource || !attrs.object || !attrs.namespace) return;
    if (attrs.operation === 'UPDATE' && (group !== '' || !CHARGED_ON_UPDATE.has(resource))) return;
    let delta = usageOf(group, resource, attrs.object, this.now());
    if (attrs.operation === 'UPDATE' && attrs.oldObject) delta = subtractNonNegative(delta, usageOf(group, resource, attrs.oldObject, this.now()));
    const store = this.quotas();
    if (!store) return;
    for (let attempt = 1; ; attempt++) {
      const quotas = (await store.list(attrs.namespace, {})).items.map((i) => asKind<ResourceQuota>(i) as ResourceQuota);
      const charges = this.charges(attrs, quotas, delta);
      if (attrs.dryRun || charges.length === 0) return;
      try {
        for (const { quota, used } of charges) await this.writeUsed(quota, used);
        return;
      } catch (err) {
        if (!ApiError.is(err, 'Conflict') || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /** Checks every covering quota; returns the new `status.used` of those the object is charged to. */
  private charges(attrs: AdmissionAttributes, quotas: ResourceQuota[], delta: Usage): { quota: ResourceQuota; used: Usage }[] {
    const { group, resource } = attrs.resource;
    const out: { quota: ResourceQuota; used: Usage }[] = [];
    for (const quota of [...quotas].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1))) {
      if (!quotaMatches(quota, group, resource, attrs.object!)) continue;
      const name = quota.metadata?.name ?? '';
      const hard = toUsage(quota.status?.hard as Record<string, string>);
      const interesting = matchingResources(group, resource, hard.keys());
      if (interesting.length === 0) continue;
      if (attrs.operation === 'CREATE' && group === '' && resource === 'pods') {
        const missing = podConstraints(asKind<Pod>(attrs.object!) as Pod, interesting);
        if (missing) throw admissionForbidden(attrs, `failed quota: ${name}: ${missing}`);
      }
      const used = toUsage(quota.status?.used as Record<string, string>);
      if (interesting.some((n) => !used.has(n))) throw admissionForbidden(attrs, `status unknown for quota: ${name}, resources: ${interesting.sort().join(',')}`);
      const requested = maskUsage(delta, interesting);
      if (requested.size === 0 || isZeroUsage(requested)) continue;
      const next = addUsage(used, requested);
      const exceeded = exceededNames(maskUsage(next, interesting), hard);
      if (exceeded.length > 0) {
        throw admissionForbidden(
          attrs,
          `exceeded quota: ${name}, requested: ${prettyPrint(maskUsage(requested, exceeded))}, used: ${prettyPrint(maskUsage(used, exceeded))}, limited: ${prettyPrint(maskUsage(hard, exceeded))}`,
        );
      }
      out.push({ quota, used: next });
    }
    return out;
  }

  /** Writes status.used guarded by the resourceVersion that was read: a lost race is a 409 Conflict. */
  private async writeUsed(quota: ResourceQuota, used: Usage): Promise<void> {
    const next = structuredClone(quota);
    next.status = { ...next.status, used: fromUsage(used) };
    await this.quotas()!.update(quota.metadata?.namespace ?? '', quota.metadata?.name ?? '', asObject(next), { dryRun: false, subresource: 'status' });
  }
}
