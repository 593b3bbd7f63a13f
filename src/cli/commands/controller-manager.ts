import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { ComponentCommand, FlagValues } from '../command.js';
import { UsageError } from '../flags.js';
import { Client } from '../../client/rest/client.js';
import { loadKubeconfig } from '../../client/rest/kubeconfig.js';
import { runLeaderElection } from '../../client/leaderelection/leader-election.js';
import { DaemonServer } from '../../machinery/daemon-server.js';
import { MetricsRegistry } from '../../machinery/metrics/registry.js';
import { loadControllers } from '../../controllers/load-controllers.js';
import { selectControllers, UnknownControllerError } from '../../controllers/controller-selection.js';
import { runControllers } from '../../controllers/run-controllers.js';

/** kube-controller-manager's secure port; here plain HTTP for health and metrics. */
const DEFAULT_HEALTH_PORT = 10257;

function seconds(flags: FlagValues, name: string): number {
  const v = Number(String(flags[name]).replace(/s$/, ''));
  if (!Number.isFinite(v) || v <= 0) throw new UsageError(`--${name} must be a positive number of seconds`);
  return v * 1000;
}

export const command: ComponentCommand = {
  name: 'controller-manager',
  summary: 'Run the controllers (Deployment, ReplicaSet, garbage collector, namespace, …) with leader election.',
  serverOrder: 30,
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: the admin kubeconfig)' },
    controllers: { type: 'string', default: '*', description: 'comma-separated controllers: "*" all on by default, "foo" enables foo, "-foo" disables foo' },
    'leader-elect': { type: 'boolean', default: true, description: 'campaign for the kube-system/kube-controller-manager lease before running controllers' },
    'no-leader-elect': { type: 'boolean', default: false, description: 'run controllers at once, without leader election' },
    'leader-elect-lease-duration': { type: 'string', default: '15', description: 'seconds a non-leader waits after the last renew before taking over' },
    'leader-elect-renew-deadline': { type: 'string', default: '10', description: 'seconds the leader keeps retrying a renew before stepping down' },
    'leader-elect-retry-period': { type: 'string', default: '2', description: 'seconds between leader election attempts' },
    'kube-api-qps': { type: 'string', default: '50', description: 'client-side requests per second to the API server' },
    'kube-api-burst': { type: 'string', default: '100', description: 'client-side request burst' },
    'bind-address': { type: 'string', default: '127.0.0.1', description: 'address of the health and metrics endpoint' },
    'health-port': { type: 'string', default: '', description: `port of /healthz and /metrics (default ${DEFAULT_HEALTH_PORT}; 0 inside skiff server)` },
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    const kubeconfig = String(flags.kubeconfig || ctx.server?.kubeconfig || process.env.KUBECONFIG || '');
    if (!kubeconfig) throw new UsageError('--kubeconfig is required');
    let selected;
    try {
      selected = selectControllers(await loadControllers(), String(flags.controllers).split(','));
    } catch (err) {
      if (err instanceof UnknownControllerError) throw new UsageError(err.message);
      throw err;
    }
    const config = { ...loadKubeconfig(kubeconfig), qps: Number(flags['kube-api-qps']), burst: Number(flags['kube-api-burst']) };
    const client = new Client(config, { component: 'controller-manager' });
    const metrics = new MetricsRegistry();
    const leaderGauge = metrics.gauge('leader_election_master_status', 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.');
    const healthPort = flags['health-port'] === '' || flags['health-port'] === undefined ? (ctx.server ? 0 : DEFAULT_HEALTH_PORT) : Number(flags['health-port']);
    const daemon = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort, metrics });
    const port = await daemon.start();
    const identity = `${hostname()}_${randomUUID()}`;
    logger.info('controller manager started', { healthPort: port, controllers: selected.map((c) => c.name), identity });
    const run = (signal: AbortSignal) => runControllers({ client, controllers: selected, logger, metrics, host: hostname() }, signal);
    try {
      if (flags['leader-elect'] && !flags['no-leader-elect']) {
        const lease = { namespace: 'kube-system', name: 'kube-controller-manager' };
        // Upstream exits when leadership is lost; in-process we stop the controllers and campaign again.
        while (!ctx.signal.aborted) await runLeaderElection({
          lease,
          identity,
          client,
          signal: ctx.signal,
          leaseDurationMs: seconds(flags, 'leader-elect-lease-duration'),
          renewDeadlineMs: seconds(flags, 'leader-elect-renew-deadline'),
          retryPeriodMs: seconds(flags, 'leader-elect-retry-period'),
          releaseOnCancel: true,
          onNewLeader: (id) => logger.info('new leader elected', { lease: `${lease.namespace}/${lease.name}`, leader: id }),
          onStartedLeading: async (signal) => {
            leaderGauge.set({ name: lease.name }, 1);
            logger.info('successfully acquired lease', { lease: `${lease.namespace}/${lease.name}` });
            await run(signal);
          },
          onStoppedLeading: () => {
            leaderGauge.set({ name: lease.name }, 0);
            if (!ctx.signal.aborted) logger.error('leaderelection lost', { lease: `${lease.namespace}/${lease.name}` });
          },
          onError: (err) => logger.warn('leader election attempt failed', { error: err }),
        });
      } else {
        await run(ctx.signal);
      }
    } finally {
      await daemon.stop();
      client.close();
    }
  },
};
