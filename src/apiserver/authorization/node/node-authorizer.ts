import { NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer } from '../authorizer.js';
import { BOOTSTRAP_CLUSTER_ROLES } from '../rbac/bootstrap-policy.js';
import { ruleAllows } from '../rbac/rule-matches.js';
import type { NodeGraphKind, NodeGraphSource } from './node-graph.js';

const NODE_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

/** The node a user is, if it is one: `system:node:<name>` in `system:nodes` (upstream's NodeIdentifier). */
export function nodeIdentity(user: { name: string; groups: readonly string[] }): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_PREFIX)) return undefined;
  const name = user.name.slice(NODE_PREFIX.length);
  return name || undefined;
}

const GRAPH_RESOURCES: Readonly<Record<string, NodeGraphKind>> = {
  secrets: 'secret',
  configmaps: 'configmap',
  persistentvolumeclaims: 'persistentvolumeclaim',
  persistentvolumes: 'persistentvolume',
};

/** The rules of the system:node role, which the Node authorizer grants every node (the role itself stays unbound). */
const NODE_RULES = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata?.name === 'system:node')?.rules ?? [];

/**
 * Upstream's Node authorizer: a kubelet may read only the secrets, config
 * maps, claims and volumes of the pods bound to it, and request tokens only
 * for their service accounts; everything else it may do is the system:node
 * role's rules. Non-nodes get no opinion.
 */
export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';

  constructor(private readonly graph: NodeGraphSource) {}

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    const node = nodeIdentity(attrs.user);
    if (!node) return NO_OPINION;
    if (attrs.resourceRequest && attrs.apiGroup === '') {
      const kind = GRAPH_RESOURCES[attrs.resource];
      if (kind && !(attrs.resource === 'persistentvolumeclaims' && attrs.subresource === 'status')) return this.authorizeGraph(node, kind, attrs);
      if (attrs.resource === 'serviceaccounts' && attrs.subresource === 'token') {
        if (attrs.verb !== 'create' || !attrs.name) return { decision: 'NoOpinion', reason: 'can only create tokens for individual service accounts' };
        return this.related(node, 'serviceaccount', attrs);
      }
    }
    return NODE_RULES.some((r) => ruleAllows(attrs, r)) ? { decision: 'Allow', reason: '' } : NO_OPINION;
  }

  private authorizeGraph(node: string, kind: NodeGraphKind, attrs: Attributes): AuthorizationResult {
    if (attrs.verb !== 'get' || !attrs.name) return { decision: 'NoOpinion', reason: 'can only get individual resources of this type' };
    if (attrs.subresource) return { decision: 'NoOpinion', reason: `cannot get subresource ${attrs.subresource}` };
    return this.related(node, kind, attrs);
  }

  private related(node: string, kind: NodeGraphKind, attrs: Attributes): AuthorizationResult {
    if (this.graph.relates(node, kind, attrs.namespace, attrs.name)) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: `no relationship found between node '${node}' and this object` };
  }
}
