import { RESOURCES } from '../../api/resources.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import type { Client } from '../../client/rest/client.js';

/** What the namespace controller needs to know of a resource to empty a namespace of it. */
export type NamespacedResource = Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'verbs'>;

/** Built-in namespaced resources that can be listed and deleted (the served-resource table). */
export function builtinNamespacedResources(): NamespacedResource[] {
  return RESOURCES.filter((r) => r.namespaced && !r.resource.includes('/') && r.verbs.includes('list') && r.verbs.includes('delete'));
}

interface GroupList {
  groups?: { name: string; preferredVersion?: { version?: string }; versions?: { version: string }[] }[];
}
interface ResourceList {
  resources?: { name: string; namespaced: boolean; verbs?: string[] }[];
}

/**
 * Every namespaced resource the namespace controller must empty, as upstream
 * finds them through discovery: the built-in table plus each group the
 * server lists that the table does not know (custom resources, aggregated
 * APIs), at the group's preferred version. `failures` names the
 * group/versions discovery could not read (upstream's
 * NamespaceDeletionDiscoveryFailure).
 */
export async function discoverNamespacedResources(client: Client, signal: AbortSignal): Promise<{ resources: NamespacedResource[]; failures: string[] }> {
  const resources = builtinNamespacedResources();
  const builtinGroups = new Set(RESOURCES.map((r) => r.group));
  const failures: string[] = [];
  let groups: GroupList;
  try {
    groups = await client.rest.request<GroupList>({ method: 'GET', path: '/apis', signal });
  } catch (err) {
    return { resources, failures: [`/apis: ${err instanceof Error ? err.message : String(err)}`] };
  }
  await Promise.all(
    (groups.groups ?? [])
      .filter((g) => !builtinGroups.has(g.name))
      .map(async (g) => {
        const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
        if (!version) return;
        try {
          const list = await client.rest.request<ResourceList>({ method: 'GET', path: `/apis/${g.name}/${version}`, signal });
          for (const r of list.resources ?? []) {
            const verbs = r.verbs ?? [];
            if (r.namespaced && !r.name.includes('/') && verbs.includes('list') && verbs.includes('delete')) resources.push({ group: g.name, version, resource: r.name, verbs });
          }
        } catch (err) {
          failures.push(`${g.name}/${version}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
  );
  return { resources, failures: failures.sort() };
}
