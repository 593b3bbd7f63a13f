import type { Pod, ServicePort } from 'kubernetes-types/core/v1.js';

/** A named targetPort that no container of the pod declares (for the port's protocol). */
export class PortNotFoundError extends Error {
  override readonly name = 'PortNotFoundError';
  constructor(
    readonly pod: string,
    readonly portName: string,
  ) {
    super(`pod ${pod} has no container port named ${JSON.stringify(portName)}`);
  }
}

/**
 * The pod port a service port sends traffic to (upstream's podutil.FindPort):
 * a numeric targetPort is used as is, a named one is looked up among the
 * pod's container ports (and restartable init containers, i.e. sidecars) with
 * the same protocol. An absent targetPort means the service port itself.
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | PortNotFoundError {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = servicePort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const container of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return new PortNotFoundError(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, target);
}
