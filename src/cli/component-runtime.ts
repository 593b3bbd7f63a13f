import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Client } from '../client/rest/client.js';
import { loadKubeconfig } from '../client/rest/kubeconfig.js';
import { runLeaderElection } from '../client/leaderelection/leader-election.js';
import type { Logger } from '../machinery/logger.js';
import type { Gauge } from '../base/metrics/registry.js';
import type { CommandContext, FlagValues } from './command.js';
import { UsageError, type FlagSpec } from './flags.js';

/** How a component reaches the API server. */
export const CLIENT_FLAGS = {
  kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: one for the component\'s own identity)' },
  'kube-api-qps': { type: 'string', default: '50', description: 'client-side requests per second to the API server' },
  'kube-api-burst': { type: 'string', default: '100', description: 'client-side request burst' },
} satisfies FlagSpec;

/** Leader election, with upstream's defaults (15 s lease, 10 s renew deadline, 2 s retry). */
export function leaderElectionFlags(lease: string): FlagSpec {
  return {
    'leader-elect': { type: 'boolean', default: true, description: `campaign for the ${lease} lease before working` },
    'no-leader-elect': { type: 'boolean', default: false, description: 'work at once, without leader election' },
    'leader-elect-lease-duration': { type: 'string', default: '15', description: 'seconds a non-leader waits after the last renew before taking over' },
    'leader-elect-renew-deadline': { type: 'string', default: '10', description: 'seconds the leader keeps retrying a renew before stepping down' },
    'leader-elect-retry-period': { type: 'string', default: '2', description: 'seconds between leader election attempts' },
  };
}

/** The health/metrics endpoint of a daemon. */
export function healthFlags(defaultPort: number): FlagSpec {
  return {
    'bind-address': { type: 'string', default: '127.0.0.1', description: 'address of the health and metrics endpoint' },
    'health-port': { type: 'string', default: '', description: `port of /healthz and /metrics (default ${defaultPort}; 0 inside skiff server)` },
  };
}

/** The health port to listen on: the flag, else the upstream default standalone and a free one inside skiff server. */
export function healthPort(flags: FlagValues, ctx: CommandContext, defaultPort: number): number {
  const v = flags['health-port'];
  return v === '' || v === undefined ? (ctx.server ? 0 : defaultPort) : Number(v);
}

/** A component's upstream identity: its user and groups, and the kubeconfig file skiff server writes for it. */
export interface ComponentIdentity {
  file: string;
  user: string;
  groups?: readonly string[];
}

/** The kubeconfig to use: --kubeconfig, else (inside skiff server) one for the component's own identity, else $KUBECONFIG. */
export async function componentKubeconfig(flags: FlagValues, ctx: CommandContext, identity: ComponentIdentity): Promise<string> {
  const explicit = String(flags.kubeconfig || '');
  if (explicit) return explicit;
  if (ctx.server) return ctx.server.credentials(identity.file, identity.user, identity.groups);
  const env = process.env.KUBECONFIG ?? '';
  if (!env) throw new UsageError('--kubeconfig is required');
  return env;
}

/** An API client from a kubeconfig with the component's rate limits. */
export function clientFromFlags(flags: FlagValues, kubeconfig: string, component: string): Client {
  return new Client({ ...loadKubeconfig(kubeconfig), qps: Number(flags['kube-api-qps']), burst: Number(flags['kube-api-burst']) }, { component });
}

function seconds(flags: FlagValues, name: string): number {
  const v = Number(String(flags[name]).replace(/s$/, ''));
  if (!Number.isFinite(v) || v <= 0) throw new UsageError(`--${name} must be a positive number of seconds`);
  return v * 1000;
}

export interface LeaderLoopOptions {
  flags: FlagValues;
  client: Client;
  lease: { namespace: string; name: string };
  logger: Logger;
  /** leader_election_master_status */
  gauge: Gauge;
  signal: AbortSignal;
  /** The work of one term of leadership; its signal aborts when leadership is lost. */
  lead(signal: AbortSignal): Promise<void>;
}

/**
 * Runs `lead` while this process holds the lease, or at once without leader
 * election. Upstream exits when leadership is lost; in-process we stop the
 * work and campaign again, until the component stops.
 */
export async function runWhileLeading(o: LeaderLoopOptions): Promise<void> {
  if (!o.flags['leader-elect'] || o.flags['no-leader-elect']) return o.lead(o.signal);
  const identity = `${hostname()}_${randomUUID()}`;
  const name = `${o.lease.namespace}/${o.lease.name}`;
  while (!o.signal.aborted) {
    await runLeaderElection({
      lease: o.lease,
      identity,
      client: o.client,
      signal: o.signal,
      leaseDurationMs: seconds(o.flags, 'leader-elect-lease-duration'),
      renewDeadlineMs: seconds(o.flags, 'leader-elect-renew-deadline'),
      retryPeriodMs: seconds(o.flags, 'leader-elect-retry-period'),
      releaseOnCancel: true,
      onNewLeader: (id) => o.logger.info('new leader elected', { lease: name, leader: id }),
      onStartedLeading: async (signal) => {
        o.gauge.set({ name: o.lease.name }, 1);
        o.logger.info('successfully acquired lease', { lease: name, identity });
        await o.lead(signal);
      },
      onStoppedLeading: () => {
        o.gauge.set({ name: o.lease.name }, 0);
        if (!o.signal.aborted) o.logger.error('leaderelection lost', { lease: name });
      },
      onError: (err) => o.logger.warn('leader election attempt failed', { error: err }),
    });
  }
}

/** leader_election_master_status, as upstream names it. */
export const LEADER_GAUGE = ['leader_election_master_status', 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.', ['name']] as const;
