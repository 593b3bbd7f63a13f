import type { Client } from '../../client/rest/client.js';
import type { GroupVersionResource } from '../../client/rest/resource-path.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import type { Clock } from '../../base/clock.js';

/** How long a discovery answer is trusted (a CRD created or removed meanwhile is seen after this). */
const DISCOVERY_TTL_MS = 30_000;

interface Discovered {
  gvr?: GroupVersionResource;
  at: number;
}

/**
 * Finds the served version of a resource the built-in table does not know (a
 * custom resource) through API discovery: the group's preferred version, if
 * it serves the resource namespaced (quota counts only namespaced objects).
 * Answers, also "not served", are cached for 30 s.
 */
export class CustomResourceDiscovery {
  private readonly cache = new Map<string, Discovered>();

  constructor(
    private readonly client: Client,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  async resolve(group: string, resource: string, signal: AbortSignal): Promise<GroupVersionResource | undefined> {
    if (!group) return undefined;
    const key = `${resource}.${group}`;
    const hit = this.cache.get(key);
    if (hit && this.clock.now() - hit.at < DISCOVERY_TTL_MS) return hit.gvr;
    const gvr = await this.discover(group, resource, signal);
    this.cache.set(key, { gvr, at: this.clock.now() });
    return gvr;
  }

  private async discover(group: string, resource: string, signal: AbortSignal): Promise<GroupVersionResource | undefined> {
    try {
      const g = await this.client.rest.request<{ preferredVersion?: { version?: string }; versions?: { version: string }[] }>({ method: 'GET', path: `/apis/${group}`, signal });
      const versions = [g.preferredVersion?.version, ...(g.versions ?? []).map((v) => v.version)].filter((v): v is string => Boolean(v));
      for (const version of [...new Set(versions)]) {
        const list = await this.client.rest.request<{ resources?: { name: string; namespaced: boolean; verbs?: string[] }[] }>({ method: 'GET', path: `/apis/${group}/${version}`, signal });
        const r = list.resources?.find((x) => x.name === resource);
        if (r) return r.namespaced && (r.verbs ?? []).includes('list') ? { group, version, resource } : undefined;
      }
      return undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
