import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import type { Clock } from '../../base/clock.js';
import { findKind } from '../../api/resources.js';
import type { ResourceInfo } from '../../api/resource-info.js';

/** How long a discovery answer is trusted (a CRD created or removed meanwhile is seen after this). */
const DISCOVERY_TTL_MS = 30_000;

/** What an owner reference's kind resolves to: a resource, or "not served" (`undefined`). */
interface Resolved {
  info?: Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'namespaced'>;
  at: number;
}

export type OwnerResource = NonNullable<Resolved['info']>;

/**
 * Resolves an owner reference's `apiVersion` and `kind` to the resource to
 * look the owner up with: from the built-in table, else through API
 * discovery (`/apis/<group>/<version>`), so custom resources can own objects
 * as upstream's collector allows. Discovery answers, "not served" too, are
 * cached for 30 s.
 */
export class OwnerKinds {
  private readonly cache = new Map<string, Resolved>();

  constructor(
    private readonly client: Client,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  async resolve(apiVersion: string, kind: string, signal: AbortSignal): Promise<OwnerResource | undefined> {
    const i = apiVersion.indexOf('/');
    const [group, version] = i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
    const builtIn = findKind(group, version, kind);
    if (builtIn || !group) return builtIn;
    const key = `${kind}.${version}.${group}`;
    const hit = this.cache.get(key);
    if (hit && this.clock.now() - hit.at < DISCOVERY_TTL_MS) return hit.info;
    const info = await this.discover(group, version, kind, signal);
    this.cache.set(key, { info, at: this.clock.now() });
    return info;
  }

  private async discover(group: string, version: string, kind: string, signal: AbortSignal): Promise<OwnerResource | undefined> {
    try {
      const list = await this.client.rest.request<{ resources?: { name: string; kind: string; namespaced: boolean }[] }>({ method: 'GET', path: `/apis/${group}/${version}`, signal });
      const r = list.resources?.find((x) => x.kind === kind && !x.name.includes('/'));
      return r ? { group, version, resource: r.name, namespaced: r.namespaced } : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
