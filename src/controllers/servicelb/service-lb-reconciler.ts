import type { Node, Service } from 'kubernetes-types/core/v1.js';
import { SERVICES } from '../../api/resource-refs.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { loadBalancerIngress, sameIngress, servedByServiceLB } from './load-balancer-ingress.js';

/**
 * ServiceLB in its simplest form (k3s's idea without the svclb pods): a
 * LoadBalancer Service without a loadBalancerClass (or with skiff's) gets
 * `status.loadBalancer.ingress` = the nodes' InternalIPs, and kube-proxy
 * serves its ports on them as on any load balancer IP. Services of another
 * class are another controller's; a Service that stops being a
 * LoadBalancer loses the ingress it had.
 */
export class ServiceLBReconciler implements Reconciler {
  constructor(private readonly o: { client: Client; services: Lister<Service>; nodes: Lister<Node> }) {}

  async reconcile(key: string, signal: AbortSignal): Promise<void> {
    const [namespace, name] = key.split('/');
    const svc = this.o.services.namespace(namespace).get(name);
    if (!svc || svc.metadata?.deletionTimestamp) return;
    const current = svc.status?.loadBalancer?.ingress ?? [];
    let want = current;
    if (servedByServiceLB(svc)) want = loadBalancerIngress(this.o.nodes.list());
    else if (svc.spec?.type !== 'LoadBalancer' && svc.spec?.loadBalancerClass === undefined) want = [];
    if (sameIngress(current, want)) return;
    const next: Service = { ...structuredClone(svc), status: { ...structuredClone(svc.status), loadBalancer: want.length > 0 ? { ingress: [...want] } : {} } };
    try {
      await this.o.client.resource<Service>(SERVICES).namespace(namespace).updateStatus(next, { signal });
    } catch (err) {
      // changed or gone meanwhile: its watch event brings it back
      if (isConflict(err) || isNotFound(err)) return;
      throw err;
    }
  }
}
