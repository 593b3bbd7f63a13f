import type { Service } from 'kubernetes-types/core/v1.js';
import { asKind, type KubeObject } from '../../../api/object.js';
import type { ResourceInfo } from '../../../api/resource-info.js';
import { invalid } from '../../../machinery/invalid.js';
import type { Storage } from '../../../storage/storage.js';
import { ipRangeAllocator, KeyAllocator } from '../allocator.js';
import { defaultStrategy, metadataFields } from '../default-strategy.js';
import type { Strategy } from '../strategy.js';

export interface ServiceNetworkOptions {
  serviceClusterIpRange: string;
  nodePortRange: [number, number];
}

/** Services: cluster IPs and node ports allocated on create, released on delete. */
export function serviceStrategy(info: ResourceInfo, storage: Storage, opts: ServiceNetworkOptions): Strategy {
  const ips = ipRangeAllocator(storage, opts.serviceClusterIpRange);
  const [lo, hi] = opts.nodePortRange;
  const ports = new KeyAllocator(storage, '/registry/ranges/servicenodeports/', hi - lo + 1, (o) => String(lo + o));
  const fail = (svc: Service, field: string, value: unknown, detail: string) =>
    invalid({ group: '', kind: 'Service' }, svc.metadata?.name ?? '', [{ type: 'FieldValueInvalid', field, badValue: value, detail }]);

  const release = async (svc: Service) => {
    for (const ip of svc.spec?.clusterIPs ?? (svc.spec?.clusterIP ? [svc.spec.clusterIP] : [])) {
      if (ip !== 'None' && ips.contains(ip)) await ips.allocator.release(ip);
    }
    for (const p of svc.spec?.ports ?? []) if (p.nodePort) await ports.release(String(p.nodePort));
    if (svc.spec?.healthCheckNodePort) await ports.release(String(svc.spec.healthCheckNodePort));
  };
  /** LoadBalancer Services with externalTrafficPolicy Local get a health check node port (upstream's NeedsHealthCheck). */
  const needsHealthCheck = (spec: NonNullable<Service['spec']>) => spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';

  return defaultStrategy(info, {
    prepareForCreate(obj) {
      delete obj.status;
      const svc = asKind<Service>(obj);
      if (svc.spec?.type === 'LoadBalancer') svc.status = { loadBalancer: {} };
    },
    selectableFields(obj) {
      const svc = asKind<Service>(obj);
      return { ...metadataFields(obj, info), 'spec.clusterIP': svc.spec?.clusterIP ?? '', 'spec.type': svc.spec?.type ?? '' };
    },
    async beforeCreate(obj: KubeObject, dryRun: boolean) {
      const svc = asKind<Service>(obj);
      const spec = (svc.spec ??= {});
      const owner = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
      if (spec.type !== 'ExternalName' && spec.clusterIP !== 'None') {
        const wanted = spec.clusterIP || spec.clusterIPs?.[0];
        if (wanted) {
          if (!ips.contains(wanted)) {
            throw fail(svc, 'spec.clusterIPs', [wanted], `failed to allocate IP ${wanted}: the provided IP (${wanted}) is not in the valid range. The range of valid IPs is ${opts.serviceClusterIpRange}`);
          }
          if (!dryRun && !(await ips.allocator.claim(wanted, owner))) {
            throw fail(svc, 'spec.clusterIPs', [wanted], `failed to allocate IP ${wanted}: provided IP is already allocated`);
          }
          spec.clusterIP = wanted;
        } else {
          const ip = dryRun ? ips.first : await ips.allocator.allocate(owner);
          if (!ip) throw fail(svc, 'spec.clusterIPs', [], 'failed to allocate a serviceIP: range is full');
          spec.clusterIP = ip;
        }
        spec.clusterIPs = [spec.clusterIP];
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
      } else if (spec.clusterIP === 'None') {
        spec.clusterIPs = ['None'];
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
      }
      if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
        for (const [i, p] of (spec.ports ?? []).entries()) {
          if (p.nodePort) {
            if (p.nodePort < lo || p.nodePort > hi) {
              throw fail(svc, `spec.ports[${i}].nodePort`, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${lo}-${hi}`);
            }
            if (!dryRun && !(await ports.claim(String(p.nodePort), owner))) {
              throw fail(svc, `spec.ports[${i}].nodePort`, p.nodePort, 'provided port is already allocated');
            }
          } else {
            const port = dryRun ? String(lo) : await ports.allocate(owner);
            if (!port) throw fail(svc, `spec.ports[${i}].nodePort`, 0, 'range is full');
            p.nodePort = Number(port);
          }
        }
      }
      if (needsHealthCheck(spec)) {
        const field = 'spec.healthCheckNodePort';
        if (spec.healthCheckNodePort) {
          if (spec.healthCheckNodePort < lo || spec.healthCheckNodePort > hi) throw fail(svc, field, spec.healthCheckNodePort, `provided port is not in the valid range. The range of valid ports is ${lo}-${hi}`);
          if (!dryRun && !(await ports.claim(String(spec.healthCheckNodePort), owner))) throw fail(svc, field, spec.healthCheckNodePort, 'provided port is already allocated');
        } else {
          const port = dryRun ? String(lo) : await ports.allocate(owner);
          if (!port) throw fail(svc, field, 0, 'range is full');
          spec.healthCheckNodePort = Number(port);
        }
      }
    },
    afterDelete: (obj) => release(asKind<Service>(obj)),
    async afterUpdate(obj, old) {
      // node ports the Service no longer has go back to the range
      const svc = asKind<Service>(obj);
      const prev = asKind<Service>(old);
      const kept = new Set([...(svc.spec?.ports ?? []).map((p) => p.nodePort), svc.spec?.healthCheckNodePort].filter((p): p is number => !!p));
      const had = [...(prev.spec?.ports ?? []).map((p) => p.nodePort), prev.spec?.healthCheckNodePort].filter((p): p is number => !!p);
      for (const p of had) if (!kept.has(p)) await ports.release(String(p));
    },
    prepareForUpdate(obj, old) {
      const svc = asKind<Service>(obj);
      const prev = asKind<Service>(old);
      if (prev.status === undefined) delete svc.status;
      else svc.status = prev.status;
      // allocated values survive an update that leaves them out (e.g. kubectl replace)
      if (svc.spec && prev.spec) {
        if (!svc.spec.clusterIP && prev.spec.clusterIP) svc.spec.clusterIP = prev.spec.clusterIP;
        if (!svc.spec.clusterIPs && prev.spec.clusterIPs) svc.spec.clusterIPs = prev.spec.clusterIPs;
        svc.spec.ipFamilies ??= prev.spec.ipFamilies;
        svc.spec.ipFamilyPolicy ??= prev.spec.ipFamilyPolicy;
        // as upstream's dropTypeDependentFields: a health check port the user left as it was goes with the need for it
        if (!svc.spec.healthCheckNodePort && prev.spec.healthCheckNodePort && needsHealthCheck(svc.spec)) svc.spec.healthCheckNodePort = prev.spec.healthCheckNodePort;
        else if (svc.spec.healthCheckNodePort && svc.spec.healthCheckNodePort === prev.spec.healthCheckNodePort && !needsHealthCheck(svc.spec)) delete svc.spec.healthCheckNodePort;
        for (const p of svc.spec.ports ?? []) {
          const same = prev.spec.ports?.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
          if (!p.nodePort && same?.nodePort && svc.spec.type !== 'ClusterIP') p.nodePort = same.nodePort;
        }
      }
    },
    returnDeletedObject: true,
  });
}
