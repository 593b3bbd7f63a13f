/** The kinds of objects a node may reach only through the pods bound to it. */
export type NodeGraphKind = 'pod' | 'secret' | 'configmap' | 'persistentvolumeclaim' | 'persistentvolume' | 'serviceaccount';

/**
 * Which objects pods bound to a node reference (upstream's node authorizer
 * graph): a secret, config map, claim or service account is readable by a
 * node only when some pod on it uses it.
 */
export interface NodeGraphSource {
  relates(node: string, kind: NodeGraphKind, namespace: string, name: string): boolean;
}

/** A graph with no edges: nodes reach nothing through pods. */
export const EMPTY_NODE_GRAPH: NodeGraphSource = { relates: () => false };
