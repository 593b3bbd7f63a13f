import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ComponentCommand, FlagValues } from '../command.js';
import { UsageError } from '../flags.js';
import { Client } from '../../client/rest/client.js';
import { loadKubeconfig } from '../../client/rest/kubeconfig.js';
import { SharedInformerFactory } from '../../client/cache/shared-informer-factory.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { runLeaderElection } from '../../client/leaderelection/leader-election.js';
import { DaemonServer } from '../../machinery/daemon-server.js';
import { MetricsRegistry } from '../../machinery/metrics/registry.js';
import { ConfigurationError, defaultConfiguration, parseSchedulerConfiguration, type SchedulerConfiguration } from '../../scheduler/config/scheduler-configuration.js';
import { UnknownPluginError } from '../../scheduler/framework/framework.js';
import { InvalidPluginArgsError } from '../../scheduler/framework/invalid-plugin-args-error.js';
import { schedulerMetrics } from '../../scheduler/metrics.js';
import { Scheduler } from '../../scheduler/scheduler.js';

/** kube-scheduler's secure port; here plain HTTP for health and metrics. */
const DEFAULT_HEALTH_PORT = 10259;

function seconds(flags: FlagValues, name: string): number {
  const v = Number(String(flags[name]).replace(/s$/, ''));
  if (!Number.isFinite(v) || v <= 0) throw new UsageError(`--${name} must be a positive number of seconds`);
  return v * 1000;
}

async function loadConfig(path: string): Promise<SchedulerConfiguration> {
  if (!path) return defaultConfiguration();
  try {
    return parseSchedulerConfiguration(await readFile(path, 'utf8'));
  } catch (err) {
    if (err instanceof ConfigurationError) throw new UsageError(`--config ${path}: ${err.message}`);
    throw err;
  }
}

export const command: ComponentCommand = {
  name: 'scheduler',
  summary: 'Run the scheduler: assigns pending pods to nodes (filter/score plugins, preemption) with leader election.',
  serverOrder: 20,
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: the admin kubeconfig)' },
    config: { type: 'string', default: '', description: 'KubeSchedulerConfiguration file (profiles, plugins, weights, percentageOfNodesToScore)' },
    'leader-elect': { type: 'boolean', default: true, description: 'campaign for the kube-system/kube-scheduler lease before scheduling' },
    'no-leader-elect': { type: 'boolean', default: false, description: 'schedule at once, without leader election' },
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
    const config = await loadConfig(String(flags.config ?? ''));
    const client = new Client({ ...loadKubeconfig(kubeconfig), qps: Number(flags['kube-api-qps']), burst: Number(flags['kube-api-burst']) }, { component: 'scheduler' });
    const registry = new MetricsRegistry();
    const leaderGauge = registry.gauge('leader_election_master_status', 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.');
    const healthPort = flags['health-port'] === '' || flags['health-port'] === undefined ? (ctx.server ? 0 : DEFAULT_HEALTH_PORT) : Number(flags['health-port']);
    const daemon = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort, metrics: registry });
    const port = await daemon.start();
    const identity = `${hostname()}_${randomUUID()}`;
    const recorder = new EventRecorder({ client, component: 'default-scheduler', onError: (err) => logger.debug('event dropped', { err }) });
    logger.info('scheduler starting', { healthPort: port, identity, profiles: config.profiles.map((p) => p.schedulerName) });

    // Each term of leadership gets fresh informers and cache: nothing stale survives a lost lease.
    const schedule = async (signal: AbortSignal): Promise<void> => {
      const informers = new SharedInformerFactory(client);
      let scheduler: Scheduler;
      try {
        scheduler = new Scheduler({ client, informers, config, recorder, logger, metrics: schedulerMetrics(registry) });
      } catch (err) {
        if (err instanceof UnknownPluginError || err instanceof InvalidPluginArgsError) throw new UsageError(err.message);
        throw err;
      }
      try {
        await scheduler.run(signal);
      } finally {
        await informers.shutdown();
      }
    };

    try {
      if (flags['leader-elect'] && !flags['no-leader-elect'] && config.leaderElection.leaderElect) {
        const lease = { namespace: config.leaderElection.resourceNamespace, name: config.leaderElection.resourceName };
        // Upstream exits when leadership is lost; in-process we stop scheduling and campaign again.
        while (!ctx.signal.aborted) {
          await runLeaderElection({
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
              await schedule(signal);
            },
            onStoppedLeading: () => {
              leaderGauge.set({ name: lease.name }, 0);
              if (!ctx.signal.aborted) logger.error('leaderelection lost', { lease: `${lease.namespace}/${lease.name}` });
            },
            onError: (err) => logger.warn('leader election attempt failed', { error: err }),
          });
        }
      } else {
        await schedule(ctx.signal);
      }
    } finally {
      await recorder.stop();
      await daemon.stop();
      client.close();
    }
  },
};
