import type { Node } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** The node table: readiness, roles from labels, and the node's reported system info. */

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
/** The older single-label form of a role. */
const ROLE_LABEL = 'kubernetes.io/role';

/** `Ready`, `NotReady` or `Unknown`, plus `SchedulingDisabled` for cordoned nodes. */
export function nodeStatus(node: Node): string {
  // The last Ready condition wins, as upstream builds a map by type.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').at(-1);
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Sorted unique roles from `node-role.kubernetes.io/<role>` and `kubernetes.io/role=<role>` labels. */
export function nodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_LABEL_PREFIX)) {
      const role = k.slice(ROLE_LABEL_PREFIX.length);
      if (role) roles.add(role);
    } else if (k === ROLE_LABEL && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

function address(node: Node, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
}

export const nodeTable = convertor<Node>(
  [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE_COLUMN,
    fieldColumn('Version', 'string', 'NodeSystemInfo.kubeletVersion'),
    fieldColumn('Internal-IP', 'string', 'NodeStatus.addresses', 1),
    fieldColumn('External-IP', 'string', 'NodeStatus.addresses', 1),
    fieldColumn('OS-Image', 'string', 'NodeSystemInfo.osImage', 1),
    fieldColumn('Kernel-Version', 'string', 'NodeSystemInfo.kernelVersion', 1),
    fieldColumn('Container-Runtime', 'string', 'NodeSystemInfo.containerRuntimeVersion', 1),
  ],
  (node, now) => {
    const info = node.status?.nodeInfo;
    const roles = nodeRoles(node).join(',');
    return [
      node.metadata?.name ?? '',
      nodeStatus(node),
      roles || '<none>',
      translateTimestampSince(node.metadata?.creationTimestamp, now),
      info?.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info?.osImage || '<unknown>',
      info?.kernelVersion || '<unknown>',
      info?.containerRuntimeVersion || '<unknown>',
    ];
  },
);
