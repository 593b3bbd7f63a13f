import { hostname } from 'node:os';
import type { ComponentCommand } from '../command.js';
import { CLIENT_FLAGS, clientFromFlags, healthFlags, healthPort, LEADER_GAUGE, leaderElectionFlags, runWhileLeading } from '../component-runtime.js';
import { UsageError } from '../flags.js';
import { DaemonServer } from '../../machinery/daemon-server.js';
import { MetricsRegistry } from '../../machinery/metrics/registry.js';
import { loadControllers } from '../../controllers/load-controllers.js';
import { selectControllers, UnknownControllerError } from '../../controllers/controller-selection.js';
import { runControllers } from '../../controllers/run-controllers.js';

/** kube-controller-manager's secure port; here plain HTTP for health and metrics. */
const DEFAULT_HEALTH_PORT = 10257;

export const command: ComponentCommand = {
  name: 'controller-manager',
  summary: 'Run the controllers (Deployment, ReplicaSet, garbage collector, namespace, …) with leader election.',
  serverOrder: 30,
  flags: {
    ...CLIENT_FLAGS,
    controllers: { type: 'string', default: '*', description: 'comma-separated controllers: "*" all on by default, "foo" enables foo, "-foo" disables foo' },
    ...leaderElectionFlags('kube-system/kube-controller-manager'),
    ...healthFlags(DEFAULT_HEALTH_PORT),
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    let selected;
    try {
      selected = selectControllers(await loadControllers(), String(flags.controllers).split(','));
    } catch (err) {
      if (err instanceof UnknownControllerError) throw new UsageError(err.message);
      throw err;
    }
    const client = clientFromFlags(flags, ctx, 'controller-manager');
    const metrics = new MetricsRegistry();
    const leaderGauge = metrics.gauge(...LEADER_GAUGE);
    const daemon = new DaemonServer({ bindAddress: String(flags['bind-address']), port: healthPort(flags, ctx, DEFAULT_HEALTH_PORT), metrics });
    const port = await daemon.start();
    logger.info('controller manager started', { healthPort: port, controllers: selected.map((c) => c.name) });
    // each controller writes through its own client and rate limit, as upstream's client builder gives them
    const clients = new Map(selected.map((c) => [c.name, clientFromFlags(flags, ctx, `controller-manager/${c.name}`)]));
    const run = (signal: AbortSignal) => runControllers({ client, clientFor: (name) => clients.get(name) ?? client, controllers: selected, logger, metrics, host: hostname() }, signal);
    try {
      const lease = { namespace: 'kube-system', name: 'kube-controller-manager' };
      await runWhileLeading({ flags, client, lease, logger, gauge: leaderGauge, signal: ctx.signal, lead: run });
    } finally {
      await daemon.stop();
      client.close();
      for (const c of clients.values()) c.close();
    }
  },
};
