import type { ComponentCommand, FlagValues } from '../command.js';
import { clientFromFlags, componentKubeconfig } from '../component-runtime.js';
import { UsageError } from '../flags.js';
import { InvalidDurationError, parseDuration } from '../../machinery/duration.js';
import { Simulator } from '../../simulate/simulator.js';
import { DEFAULT_SHAPE, parseCapacity, parseTaints } from '../../simulate/simulated-node.js';

/** The simulator's own identity; RBAC lets it watch nodes and pods and impersonate nodes (bootstrap-policy.ts). */
export const SIMULATOR_USER = 'system:skiff:simulator';

function duration(flags: FlagValues, name: string): number {
  try {
    return parseDuration(String(flags[name]));
  } catch (err) {
    if (err instanceof InvalidDurationError) throw new UsageError(`invalid --${name}: ${err.message}`);
    throw err;
  }
}

function wholeNumber(flags: FlagValues, name: string, min: number): number {
  const v = Number(flags[name]);
  if (!Number.isInteger(v) || v < min) throw new UsageError(`--${name} must be a whole number >= ${min}`);
  return v;
}

function parsed<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`--${name}: ${err.message}`);
    throw err;
  }
}

export const command: ComponentCommand = {
  name: 'simulate',
  summary: 'Run simulated nodes (kwok\'s idea): N Nodes with Leases and status, whose pods go Pending → Running → Succeeded/deleted without containers.',
  serverOrder: 45,
  serverFlags: { nodes: 'simulated-nodes', 'node-lease-duration-seconds': 'simulated-node-lease-duration-seconds' },
  flags: {
    kubeconfig: { type: 'string', default: '', description: `kubeconfig of the API server (inside skiff server: one for ${SIMULATOR_USER}); it must be allowed to list/watch nodes and pods and impersonate nodes` },
    'kube-api-qps': { type: 'string', default: '-1', description: 'client-side requests per second (-1: none; --write-concurrency bounds the simulator instead)' },
    'kube-api-burst': { type: 'string', default: '1000', description: 'client-side request burst' },
    nodes: { type: 'string', default: '0', description: 'how many nodes to simulate (skiff server: --simulated-nodes; 0 there runs none)' },
    'node-name-prefix': { type: 'string', default: DEFAULT_SHAPE.prefix, description: 'nodes are named <prefix><index>' },
    'node-zones': { type: 'string', default: DEFAULT_SHAPE.zones.join(','), description: 'comma-separated topology.kubernetes.io/zone values the nodes are spread over' },
    'node-capacity': { type: 'string', default: '', description: `capacity (and allocatable) overrides, name=quantity,... (default ${Object.entries(DEFAULT_SHAPE.capacity).map(([k, v]) => `${k}=${v}`).join(',')})` },
    'node-taints': { type: 'string', default: '', description: 'taints the nodes register with, key[=value]:Effect,... (e.g. node.skiff.dev/simulated=true:NoSchedule so only pods tolerating it land there)' },
    'pod-start-delay': { type: 'string', default: '0s', description: 'from a pod bound to a simulated node to it Running' },
    'job-pod-duration': { type: 'string', default: '5s', description: 'how long pods owned by a Job run before they Succeed' },
    'write-concurrency': { type: 'string', default: '32', description: 'API writes in flight at most, for heartbeats and for pods each' },
    'node-lease-duration-seconds': { type: 'string', default: '40', description: 'duration of each node Lease, renewed every quarter of it (upstream: 40 s, every 10 s)' },
    'node-status-report-frequency': { type: 'string', default: '5m', description: 'how often an unchanged NodeStatus is written (upstream nodeStatusReportFrequency)' },
  },

  async run(flags, ctx) {
    const nodes = wholeNumber(flags, 'nodes', ctx.server ? 0 : 1);
    if (nodes === 0) return;
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'simulator', user: SIMULATOR_USER });
    const client = clientFromFlags(flags, kubeconfig, 'simulate');
    const str = (k: string) => String(flags[k] ?? '');
    try {
      const simulator = new Simulator({
        client,
        nodes,
        shape: {
          prefix: str('node-name-prefix'),
          zones: str('node-zones').split(',').map((z) => z.trim()).filter(Boolean),
          capacity: parsed('node-capacity', () => parseCapacity(str('node-capacity'), DEFAULT_SHAPE.capacity)),
          taints: parsed('node-taints', () => parseTaints(str('node-taints'))),
        },
        timing: { startDelayMs: duration(flags, 'pod-start-delay'), jobPodDurationMs: duration(flags, 'job-pod-duration') },
        concurrency: wholeNumber(flags, 'write-concurrency', 1),
        leaseDurationSeconds: wholeNumber(flags, 'node-lease-duration-seconds', 1),
        statusReportIntervalMs: duration(flags, 'node-status-report-frequency'),
        logger: ctx.logger,
      });
      ctx.logger.info('simulating nodes', { nodes, first: simulator.names[0], last: simulator.names.at(-1) });
      await simulator.run(ctx.signal);
    } finally {
      client.close();
    }
  },
};
