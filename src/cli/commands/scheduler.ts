import { readFile } from 'node:fs/promises';
import type { ComponentCommand } from '../command.js';
import { CLIENT_FLAGS, clientFromFlags, componentKubeconfig, healthFlags, healthPort, LEADER_GAUGE, leaderElectionFlags, runWhileLeading } from '../component-runtime.js';
import { UsageError } from '../flags.js';
import { SharedInformerFactory } from '../../client/cache/shared-informer-factory.js';
import { stripManagedFields } from '../../client/cache/transform.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { ConfigurationError, defaultConfiguration, parseSchedulerConfiguration, type SchedulerConfiguration } from '../../scheduler/config/scheduler-configuration.js';
import { UnknownPluginError } from '../../scheduler/framework/framework.js';
import { InvalidPluginArgsError } from '../../scheduler/framework/invalid-plugin-args-error.js';
import { schedulerMetrics } from '../../scheduler/metrics.js';
import { Scheduler } from '../../scheduler/scheduler.js';

/** kube-scheduler's secure port; here plain HTTP for health and metrics. */
const DEFAULT_HEALTH_PORT = 10259;

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
    ...CLIENT_FLAGS,
    config: { type: 'string', default: '', description: 'KubeSchedulerConfiguration file (profiles, plugins, weights, percentageOfNodesToScore)' },
    ...leaderElectionFlags('kube-system/kube-scheduler'),
    ...healthFlags(DEFAULT_HEALTH_PORT),
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    const config = await loadConfig(String(flags.config ?? ''));
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'scheduler', user: 'system:kube-scheduler' });
    const client = clientFromFlags(flags, kubeconfig, 'scheduler');
    const registry = new MetricsRegistry();
    const leaderGauge = registry.gauge(...LEADER_GAUGE);
    const daemon = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort(flags, ctx, DEFAULT_HEALTH_PORT), metrics: registry });
    const port = await daemon.start();
    const recorder = new EventRecorder({ client, component: 'default-scheduler', onError: (err) => logger.debug('event dropped', { err }) });
    logger.info('scheduler starting', { healthPort: port, profiles: config.profiles.map((p) => p.schedulerName) });

    // Each term of leadership gets fresh informers and cache: nothing stale survives a lost lease.
    const schedule = async (signal: AbortSignal): Promise<void> => {
      // as kube-scheduler's informers: managedFields are never read, and are often the largest part of an object
      const informers = new SharedInformerFactory(client, { informer: { transform: stripManagedFields } });
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
      // the configuration file may turn leader election off, as upstream's leaderElection.leaderElect
      const electionFlags = config.leaderElection.leaderElect ? flags : { ...flags, 'leader-elect': false };
      const lease = { namespace: config.leaderElection.resourceNamespace, name: config.leaderElection.resourceName };
      await runWhileLeading({ flags: electionFlags, client, lease, logger, gauge: leaderGauge, signal: ctx.signal, lead: schedule });
    } finally {
      await recorder.stop();
      await daemon.stop();
      client.close();
    }
  },
};
