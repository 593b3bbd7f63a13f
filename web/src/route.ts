import { useEffect, useState } from 'preact/hooks';

/** Where a resource lives in the API: `group` '' is the core group. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

export interface ObjectRef extends ResourceRef {
  namespace: string;
  name: string;
}

export type Route = { page: 'overview' } | { page: 'object'; ref: ObjectRef; tab: string };

/** `#/o/<group|core>/<version>/<resource>/<namespace|->/<name>/<tab>` or the overview. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'o' && parts.length >= 6) {
    const [, group, version, resource, namespace, name, tab] = parts as [string, string, string, string, string, string, string?];
    return { page: 'object', ref: { group: group === 'core' ? '' : group, version, resource, namespace: namespace === '-' ? '' : namespace, name }, tab: tab || 'summary' };
  }
  return { page: 'overview' };
}

export function objectHref(ref: ObjectRef, tab = 'summary'): string {
  const parts = ['o', ref.group || 'core', ref.version, ref.resource, ref.namespace || '-', ref.name, tab];
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Kinds the dashboard links to (owner references name kinds, the API wants resources). */
const KINDS: Record<string, ResourceRef> = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  Node: { group: '', version: 'v1', resource: 'nodes' },
  Service: { group: '', version: 'v1', resource: 'services' },
  ReplicationController: { group: '', version: 'v1', resource: 'replicationcontrollers' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  ReplicaSet: { group: 'apps', version: 'v1', resource: 'replicasets' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
};

export function resourceOfKind(kind: string): ResourceRef | undefined {
  return KINDS[kind];
}
