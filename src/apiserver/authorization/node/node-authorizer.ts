import { NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer } from '../authorizer.js';
import { BOOTSTRAP_CLUSTER_ROLES } from '../rbac/bootstrap-policy.js';
import { ruleAllows } from '../rbac/rule-matches.js';
import type { NodeGraphKind, NodeGraphSource } from './node-graph.js';

const NODE_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The node a user is, if it is one: `system:node:<name>` in `system:nodes` (upstream's NodeIdentifier). */
export function nodeIdentity(user: { name: string; groups: readonly string[] }): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_PREFIX)) return undefined;
  const name = user.name.slice(NODE_PREFIX.length);
  return name || undefined;
}

/** The rules of the system:node role, which the Node authorizer grants every node (the role itself stays unbound). */
const NODE_RULES = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata?.name === 'system:node')?.rules ?? [];

const ALLOW: AuthorizationResult = { decision: 'Allow', reason: '' };
const deny = (reason: string): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/**
 * Upstream's Node authorizer (with AuthorizeNodeWithSelectors, on by default
 * since 1.32): a kubelet may read only the secrets, config maps, claims and
 * volumes of the pods bound to it, request tokens only for their service
 * accounts, touch only its own Lease and CSINode, read only its own Node,
 * and list or watch only its own pods; everything else it may do is the
 * system:node role's rules. What it writes to nodes and pods is limited by
 * the NodeRestriction admission plugin. Non-nodes get no opinion.
 */
export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';

  constructor(private readonly graph: NodeGraphSource) {}

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    const node = nodeIdentity(attrs.user);
    if (!node) return NO_OPINION;
    if (attrs.resourceRequest) {
      const decided = this.byResource(node, attrs);
      if (decided) return decided;
    }
    return NODE_RULES.some((r) => ruleAllows(attrs, r)) ? ALLOW : NO_OPINION;
  }

  /** The decision for the resources a node's access is subdivided on; undefined: the static rules decide. */
  private byResource(node: string, attrs: Attributes): AuthorizationResult | undefined {
    const group = attrs.apiGroup;
    switch (`${group}/${attrs.resource}`) {
      case '/secrets':
        return this.readNamespaced(node, 'secret', attrs);
      case '/configmaps':
        return this.readNamespaced(node, 'configmap', attrs);
      case '/persistentvolumeclaims':
        if (attrs.subresource === 'status') {
          if (attrs.verb !== 'update' && attrs.verb !== 'patch') return deny('can only get/update/patch this type');
          return this.related(node, 'persistentvolumeclaim', attrs);
        }
        return this.get(node, 'persistentvolumeclaim', attrs);
      case '/persistentvolumes':
        return this.get(node, 'persistentvolume', attrs);
      case '/serviceaccounts':
        if (attrs.verb !== 'create' || !attrs.name) return deny('can only create tokens for individual service accounts');
        if (attrs.subresource !== 'token') return deny('can only create token subresource of serviceaccount');
        return this.related(node, 'serviceaccount', attrs);
      case 'coordination.k8s.io/leases':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return deny('can only get, create, update, patch, or delete a node lease');
        if (attrs.namespace !== NODE_LEASE_NAMESPACE) return deny(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        if (attrs.verb !== 'create' && attrs.name !== node) return deny('can only access node lease with the same name as the requesting node');
        return ALLOW;
      case 'storage.k8s.io/csinodes':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return deny('can only get, create, update, patch, or delete a CSINode');
        if (attrs.subresource) return deny('cannot authorize CSINode subresources');
        if (attrs.verb !== 'create' && attrs.name !== node) return deny('can only access CSINode with the same name as the requesting node');
        return ALLOW;
      case '/nodes':
        return this.nodes(node, attrs);
      case '/pods':
        return this.pods(node, attrs);
      default:
        return undefined;
    }
  }

  private nodes(node: string, attrs: Attributes): AuthorizationResult {
    if (!attrs.subresource) {
      // creating and updating its own Node is NodeRestriction's to limit
      if (['create', 'update', 'patch'].includes(attrs.verb)) return ALLOW;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        if (attrs.name === node) return ALLOW;
        return deny(attrs.name ? `node '${node}' cannot read '${attrs.name}', only its own Node object` : `node '${node}' cannot read all nodes, only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
      return ALLOW;
    }
    return NO_OPINION;
  }

  private pods(node: string, attrs: Attributes): AuthorizationResult {
    switch (attrs.subresource) {
      case '':
        if (attrs.verb === 'get') return this.related(node, 'pod', attrs);
        if (attrs.verb === 'list' || attrs.verb === 'watch') {
          if (attrs.fieldSelector?.some((r) => r.field === 'spec.nodeName' && r.operator === '=' && r.value === node)) return ALLOW;
          if (attrs.name) return this.related(node, 'pod', attrs);
          return deny('can only list/watch pods with spec.nodeName field selector');
        }
        // mirror pods; NodeRestriction limits them to this node
        if (attrs.verb === 'create' || attrs.verb === 'delete') return ALLOW;
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return ALLOW;
        break;
    }
    return NO_OPINION;
  }

  /** get, list or watch of one named object in a namespace (a list or watch names it by a metadata.name field selector). */
  private readNamespaced(node: string, kind: NodeGraphKind, attrs: Attributes): AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(attrs.verb)) return deny('can only read resources of this type');
    if (attrs.subresource) return deny('cannot read subresource');
    if (!attrs.namespace) return deny('can only read namespaced object of this type');
    return this.related(node, kind, attrs);
  }

  private get(node: string, kind: NodeGraphKind, attrs: Attributes): AuthorizationResult {
    if (attrs.verb !== 'get') return deny('can only get individual resources of this type');
    if (attrs.subresource) return deny('cannot get subresource');
    return this.related(node, kind, attrs);
  }

  private related(node: string, kind: NodeGraphKind, attrs: Attributes): AuthorizationResult {
    if (!attrs.name) return deny('No Object name found');
    if (this.graph.relates(node, kind, attrs.namespace, attrs.name)) return ALLOW;
    return deny(`no relationship found between node '${node}' and this object`);
  }
}
