import type { ApiClient } from './api-client.js';
import { findProcesses } from './proc-scan.js';
import type { WatchEventObject } from './watch-auditor.js';

/** Invariant violations, each with when it was found. */
export class Violations {
  readonly list: { at: Date; invariant: string; message: string }[] = [];

  add(invariant: string, message: string): void {
    if (this.list.some((v) => v.invariant === invariant && v.message === message)) return;
    if (this.list.length < 500) this.list.push({ at: new Date(), invariant, message });
    process.stderr.write(`VIOLATION ${invariant}: ${message}\n`);
  }

  get count(): number {
    return this.list.length;
  }
}

/** A pod (by uid) is bound once: its spec.nodeName never changes to another node. */
export class PodBindingCheck {
  private readonly nodeOf = new Map<string, string>();

  constructor(private readonly violations: Violations) {}

  observe(_type: string, pod: WatchEventObject): void {
    const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    const uid = pod.metadata.uid;
    if (!node || !uid) return;
    const before = this.nodeOf.get(uid);
    if (before === undefined) this.nodeOf.set(uid, node);
    else if (before !== node) this.violations.add('pod-bound-once', `pod ${pod.metadata.namespace}/${pod.metadata.name} (${uid}) bound to ${before} and then ${node}`);
  }
}

interface ServiceJson {
  metadata: { namespace: string; name: string };
  spec: { clusterIP?: string; clusterIPs?: string[]; ports?: { nodePort?: number }[] };
}

/** No two live Services share a cluster IP or a node port. */
export async function checkServiceAllocations(client: ApiClient, violations: Violations): Promise<void> {
  const answer = await client.request<{ items: ServiceJson[] }>('GET', '/api/v1/services');
  if (answer.status !== 200) return;
  const ips = new Map<string, string>();
  const ports = new Map<number, string>();
  for (const svc of answer.json.items) {
    const who = `${svc.metadata.namespace}/${svc.metadata.name}`;
    for (const ip of svc.spec.clusterIPs ?? (svc.spec.clusterIP ? [svc.spec.clusterIP] : [])) {
      if (ip === 'None') continue;
      const other = ips.get(ip);
      if (other) violations.add('unique-cluster-ip', `${ip} given to ${other} and ${who}`);
      ips.set(ip, who);
    }
    for (const p of svc.spec.ports ?? []) {
      if (!p.nodePort) continue;
      const other = ports.get(p.nodePort);
      if (other && other !== who) violations.add('unique-node-port', `${p.nodePort} given to ${other} and ${who}`);
      ports.set(p.nodePort, who);
    }
  }
}

/**
 * No StatefulSet ordinal runs twice at once, judged on the host: the
 * containers of StatefulSet pods carry their pod name and uid in their
 * environment (downward API), and at no moment may live processes of two
 * different pod uids claim the same pod name. Shims (which keep the
 * environment while they wait for the container's exit) do not count.
 */
export function checkOrdinals(runId: string, violations: Violations): void {
  const byName = new Map<string, Set<string>>();
  for (const p of findProcesses({ envKey: 'SOAK_ORDINAL' })) {
    if (p.env.get('SOAK_RUN') !== runId || p.cmdline.includes('skiff-shim')) continue;
    const name = p.env.get('SOAK_ORDINAL')!;
    const uids = byName.get(name) ?? new Set<string>();
    uids.add(p.env.get('SOAK_POD_UID') ?? '?');
    byName.set(name, uids);
  }
  for (const [name, uids] of byName) {
    if (uids.size > 1) violations.add('ordinal-once', `StatefulSet pod ${name} runs as ${uids.size} pods at once (uids ${[...uids].join(', ')})`);
  }
}
