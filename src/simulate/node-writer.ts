import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { LEASES, NODES, PODS } from '../api/resource-refs.js';
import type { Client } from '../client/rest/client.js';
import type { RestClient, RestRequest } from '../client/rest/rest-client.js';
import { resourcePath } from '../client/rest/resource-path.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/**
 * Every write of a simulated kubelet, made as that node: the requests
 * impersonate `system:node:<name>` in `system:nodes`, so the Node authorizer
 * and NodeRestriction judge them exactly as they judge a real kubelet's (a
 * simulated node cannot write a pod bound elsewhere, nor another node's
 * Lease). One connection pool serves all the nodes.
 */
export class NodeWriter {
  private readonly rest: RestClient;

  constructor(client: Client) {
    this.rest = client.rest;
  }

  private send<T>(node: string, req: RestRequest): Promise<T> {
    return this.rest.request<T>(this.as(node, req));
  }

  private as(node: string, req: RestRequest): RestRequest {
    return { ...req, headers: { ...req.headers, 'Impersonate-User': `system:node:${node}`, 'Impersonate-Group': 'system:nodes' } };
  }

  createNode(obj: Node, signal?: AbortSignal): Promise<Node> {
    return this.send(obj.metadata!.name!, { method: 'POST', path: resourcePath(NODES), body: obj, signal });
  }

  getNode(name: string, signal?: AbortSignal): Promise<Node> {
    return this.send(name, { method: 'GET', path: resourcePath({ ...NODES, name }), signal });
  }

  /** A merge patch of the Node's status (the kubelet patches its status; no resourceVersion to conflict on). */
  patchNodeStatus(name: string, patch: Pick<Node, 'status'>, signal?: AbortSignal): Promise<Node> {
    const path = resourcePath({ ...NODES, name, subresource: 'status' });
    return this.send(name, { method: 'PATCH', path, body: patch, contentType: 'application/merge-patch+json', signal });
  }

  createLease(node: string, obj: Lease, signal?: AbortSignal): Promise<Lease> {
    return this.send(node, { method: 'POST', path: resourcePath({ ...LEASES, namespace: NODE_LEASE_NAMESPACE }), body: obj, signal });
  }

  getLease(node: string, signal?: AbortSignal): Promise<Lease> {
    return this.send(node, { method: 'GET', path: resourcePath({ ...LEASES, namespace: NODE_LEASE_NAMESPACE, name: node }), signal });
  }

  updateLease(node: string, obj: Lease, signal?: AbortSignal): Promise<Lease> {
    return this.send(node, { method: 'PUT', path: resourcePath({ ...LEASES, namespace: NODE_LEASE_NAMESPACE, name: node }), body: obj, signal });
  }

  /** Writes a pod's status; the answer (the whole pod, which the watch brings anyway) is not decoded. */
  updatePodStatus(node: string, pod: Pod, signal?: AbortSignal): Promise<void> {
    const path = resourcePath({ ...PODS, namespace: pod.metadata!.namespace!, name: pod.metadata!.name!, subresource: 'status' });
    return this.rest.requestError(this.as(node, { method: 'PUT', path, body: pod, signal }));
  }

  /** The kubelet's last word on a terminated pod: delete now, only if it is still the same pod. */
  deletePod(node: string, pod: Pod, signal?: AbortSignal): Promise<unknown> {
    const path = resourcePath({ ...PODS, namespace: pod.metadata!.namespace!, name: pod.metadata!.name! });
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: pod.metadata!.uid } };
    return this.send(node, { method: 'DELETE', path, body, signal });
  }
}
