import { RESOURCES } from '../../api/resources.js';
import type { ResourceInfo } from '../../api/resource-info.js';

/** Resources the GC never tracks: events would only churn the graph and never own anything. */
const IGNORED = new Set(['events', 'events.events.k8s.io']);

/**
 * Every served resource the collector can watch and delete (upstream's
 * GetDeletableResources). From the served-resource table; custom resources
 * would come from discovery.
 */
export function deletableResources(): ResourceInfo[] {
  return RESOURCES.filter((r) => {
    const gr = r.group ? `${r.resource}.${r.group}` : r.resource;
    if (IGNORED.has(gr) || r.resource.includes('/')) return false;
    return ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v));
  });
}
