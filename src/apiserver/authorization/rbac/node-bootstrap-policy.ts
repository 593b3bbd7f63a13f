import type { ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { AUTOUPDATE_ANNOTATION, group, user } from './bootstrap-policy.js';

/**
 * What kubeadm adds to upstream's policy so nodes can join with a bootstrap
 * token (skiff plays kubeadm's part): bootstrappers may create CSRs, their
 * node client CSRs are auto-approved, nodes may renew their own, and anyone
 * may read kube-public/cluster-info (the CA and server to trust).
 */
const G = 'rbac.authorization.k8s.io';
const NODE_TOKEN_GROUP = 'system:bootstrappers:kubeadm:default-node-token';
const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } });

function binding(name: string, clusterRole: string, subject: ReturnType<typeof group>): ClusterRoleBinding {
  return { apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: meta(name), roleRef: { apiGroup: G, kind: 'ClusterRole', name: clusterRole }, subjects: [subject] };
}

export const NODE_BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = [
  binding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', group(NODE_TOKEN_GROUP)),
  binding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', group(NODE_TOKEN_GROUP)),
  binding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', group('system:nodes')),
];

export const NODE_BOOTSTRAP_ROLES: readonly Role[] = [
  {
    apiVersion: `${G}/v1`,
    kind: 'Role',
    metadata: meta('kubeadm:bootstrap-signer-clusterinfo', 'kube-public'),
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }],
  },
];

export const NODE_BOOTSTRAP_ROLE_BINDINGS: readonly RoleBinding[] = [
  {
    apiVersion: `${G}/v1`,
    kind: 'RoleBinding',
    metadata: meta('kubeadm:bootstrap-signer-clusterinfo', 'kube-public'),
    roleRef: { apiGroup: G, kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' },
    subjects: [user('system:anonymous')],
  },
];
