import type { ComponentCommand, FlagValues } from '../command.js';
import { parseFlags, UsageError, type FlagSpec } from '../flags.js';
import { command as kubelet } from './kubelet.js';
import { command as podnet } from './podnet.js';
import { command as proxy } from './proxy.js';

/** The flags of kube-proxy and podnet `skiff agent` passes on (the kubelet's are all its own). */
const PROXY_FLAGS = ['proxy-mode', 'masquerade-all', 'nodeport-addresses', 'detect-local-mode', 'pod-bridge-interface'] as const;

function pick(spec: FlagSpec, names: readonly string[]): FlagSpec {
  return Object.fromEntries(names.map((n) => [n, { ...spec[n]!, description: `kube-proxy: ${spec[n]!.description}` }]));
}

/** A component's flags: its defaults, overridden by `values`. */
function flagsOf(spec: FlagSpec, values: FlagValues): FlagValues {
  return { ...(parseFlags([], spec) as FlagValues), ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) };
}

/**
 * `skiff agent`, as `k3s agent`: one process running what a node of a
 * cluster on several hosts needs — the kubelet (joined by bootstrap token, or
 * with a kubeconfig), kube-proxy and the pod network between nodes (podnet's
 * host-gw routes). When one stops, all stop.
 */
export const command: ComponentCommand = {
  name: 'agent',
  summary: 'Run a node of a cluster on several hosts: kubelet, kube-proxy and the pod network (routes to the other nodes\' pods), as `k3s agent`.',
  flags: {
    ...kubelet.flags,
    ...pick(proxy.flags, PROXY_FLAGS),
    'proxy-kubeconfig': { type: 'string', default: '', description: 'kubeconfig kube-proxy and podnet use: they list every Service, EndpointSlice and Node, which a node\'s own credentials may not (required)' },
    'cluster-cidr': { type: 'string', default: String(podnet.flags['cluster-cidr']!.default), description: 'podnet: the range of all pods\' addresses, not masqueraded between pods' },
    'flannel-backend': { type: 'string', default: 'host-gw', description: 'podnet: how pod traffic crosses nodes (host-gw: routes through each node\'s InternalIP; none: no routes)' },
  },

  async run(flags, ctx) {
    const services = String(flags['proxy-kubeconfig'] ?? '');
    if (!services) throw new UsageError('--proxy-kubeconfig is required: kube-proxy and podnet need to list Services, EndpointSlices and Nodes');
    const backend = String(flags['flannel-backend']);
    if (backend !== 'host-gw' && backend !== 'none') throw new UsageError(`--flannel-backend ${backend} is not supported (host-gw or none)`);
    const nodeName = String(flags['node-name'] ?? '');
    const own = (spec: FlagSpec) => Object.fromEntries(Object.keys(spec).filter((k) => k in flags).map((k) => [k, flags[k]]));
    const kubeletFlags = own(kubelet.flags);
    const proxyFlags = flagsOf(proxy.flags, { ...own(pick(proxy.flags, PROXY_FLAGS)), kubeconfig: services, 'hostname-override': nodeName, 'oom-score-adj': flags['oom-score-adj'] });
    const podnetFlags = flagsOf(podnet.flags, { kubeconfig: services, 'hostname-override': nodeName, 'cluster-cidr': flags['cluster-cidr'], 'health-port': '0' });
    const stop = new AbortController();
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    const run = async (c: ComponentCommand, f: FlagValues) => {
      try {
        await c.run(f, { logger: ctx.logger.with({ component: c.name }), signal });
      } finally {
        // one component gone (an error, or a stop) stops the node
        stop.abort();
      }
    };
    const results = await Promise.allSettled([
      run(kubelet, kubeletFlags),
      run(proxy, proxyFlags),
      ...(backend === 'none' ? [] : [run(podnet, podnetFlags)]),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  },
};
