import { isIP } from 'node:net';
import type { Service } from 'kubernetes-types/core/v1.js';

/** Services of the default namespace whose variables every pod gets (upstream's masterServices). */
const MASTER_SERVICES = new Set(['kubernetes']);

/**
 * The service environment a pod's containers start with, as upstream's
 * kubelet makes it: the `kubernetes` Service of `default` always (so
 * in-cluster clients find the API server), and with `enableServiceLinks`
 * (default true) every Service of the pod's namespace; headless Services and
 * those without a cluster IP are skipped. A Service of the pod's namespace
 * named like a master service replaces it.
 */
export function serviceEnv(services: Iterable<Service>, namespace: string, enableServiceLinks = true): Record<string, string> {
  const chosen = new Map<string, Service>();
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    const name = s.metadata?.name ?? '';
    if (s.metadata?.namespace === 'default' && MASTER_SERVICES.has(name)) {
      if (!chosen.has(name)) chosen.set(name, s);
    } else if (s.metadata?.namespace === namespace && enableServiceLinks) {
      chosen.set(name, s);
    }
  }
  const env: Record<string, string> = {};
  for (const s of chosen.values()) Object.assign(env, serviceVariables(s));
  return env;
}

function hasClusterIP(s: Service): boolean {
  const ip = s.spec?.clusterIP;
  return Boolean(ip) && ip !== 'None' && (s.spec?.ports?.length ?? 0) > 0;
}

/** `<NAME>_SERVICE_HOST`, `_SERVICE_PORT[_<PORT NAME>]` and the Docker link variables (`<NAME>_PORT_<port>_<PROTO>…`). */
export function serviceVariables(s: Service): Record<string, string> {
  const prefix = envName(s.metadata?.name ?? '');
  const ip = s.spec!.clusterIP!;
  const ports = s.spec!.ports!;
  const env: Record<string, string> = {};
  env[`${prefix}_SERVICE_HOST`] = ip;
  env[`${prefix}_SERVICE_PORT`] = String(ports[0].port);
  for (const p of ports) if (p.name) env[`${prefix}_SERVICE_PORT_${envName(p.name)}`] = String(p.port);
  const host = isIP(ip) === 6 ? `[${ip}]` : ip;
  ports.forEach((p, i) => {
    const proto = (p.protocol || 'TCP').toLowerCase();
    const url = `${proto}://${host}:${p.port}`;
    // Docker's first port has a name of its own
    if (i === 0) env[`${prefix}_PORT`] = url;
    const portPrefix = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
    env[portPrefix] = url;
    env[`${portPrefix}_PROTO`] = proto;
    env[`${portPrefix}_PORT`] = String(p.port);
    env[`${portPrefix}_ADDR`] = ip;
  });
  return env;
}

function envName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}
