import type { ComponentCommand, FlagValues } from '../cli/command.js';
import { parseFlags } from '../cli/flags.js';
import { createLogger, type Logger } from '../machinery/logger.js';
import { SimulatedNodes } from './simulated-nodes.js';
import { startTestApiServer, type TestApiServer, type TestApiServerOptions } from './test-api-server.js';

export interface TestClusterOptions extends TestApiServerOptions {
  /** Simulated nodes to register (a count, named node-1…, or names). Default none. */
  nodes?: number | string[];
  /** The controller manager's --controllers (e.g. ['*', '-garbagecollector']). Default all. */
  controllers?: string[];
  /** Run the scheduler. Default true. */
  scheduler?: boolean;
  /** Where the components log. Default: nowhere. */
  componentLogger?: Logger;
}

export interface TestCluster extends TestApiServer {
  /** The names of the simulated nodes. */
  nodes: readonly string[];
}

/**
 * startTestApiServer plus the controller manager and the scheduler running
 * in this process (each talking to the API server over HTTPS like any other
 * client), and optionally simulated nodes on which pods run at once.
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  // loaded here, not at the top: a test that only needs startTestApiServer does not pay for every controller's code
  const [{ command: controllerManager }, { command: scheduler }] = await Promise.all([import('../cli/commands/controller-manager.js'), import('../cli/commands/scheduler.js')]);
  const api = await startTestApiServer(options);
  const logger = options.componentLogger ?? createLogger('testing', {}, () => {});
  const stopping = new AbortController();
  const names = typeof options.nodes === 'number' ? Array.from({ length: options.nodes }, (_, i) => `node-${i + 1}`) : (options.nodes ?? []);
  const nodes = new SimulatedNodes(api.client, names);
  // components run as the admin here: the test API server's authorization is not what these tests are about
  const ctx = { logger, signal: stopping.signal, server: { kubeconfig: api.kubeconfigPath, dataDir: '', credentials: async () => api.kubeconfigPath } };
  const run = (component: ComponentCommand, args: string[]) => {
    const flags = parseFlags(['--no-leader-elect', '--health-port=0', ...args], component.flags) as FlagValues;
    const componentLogger = logger.with({ component: component.name });
    return component.run(flags, { ...ctx, logger: componentLogger }).catch((err: unknown) => {
      componentLogger.error('component failed', { error: err instanceof Error ? err.stack : String(err) });
    });
  };
  const running: Promise<void>[] = [];
  try {
    await nodes.start();
    running.push(run(controllerManager, ['--use-service-account-credentials=false', ...(options.controllers ? [`--controllers=${options.controllers.join(',')}`] : [])]));
    if (options.scheduler ?? true) running.push(run(scheduler, []));
  } catch (err) {
    stopping.abort();
    await Promise.allSettled(running);
    await nodes.stop();
    await api.stop();
    throw err;
  }
  // a component that fails stops only itself (and logs why), as inside `skiff server`
  const settled = Promise.all(running);
  let stopped: Promise<void> | undefined;
  return {
    ...api,
    nodes: names,
    stop: () =>
      (stopped ??= (async () => {
        stopping.abort();
        await settled;
        await nodes.stop();
        await api.stop();
      })()),
  };
}
