import { createLogger } from '../machinery/logger.js';
import { installFatalHandlers } from '../base/fatal-handlers.js';
import { IntegrityError } from '../storage/errors.js';
import { APISERVER_FLAGS, startApiServer } from './apiserver.js';
import { COMPONENTS } from './components.js';
import type { ComponentCommand, FlagValues } from './command.js';
import { ApiError } from '../machinery/api-error.js';
import { KubeconfigError } from '../client/rest/kubeconfig.js';
import { NetworkError } from '../client/rest/network-error.js';
import { tenthAddress } from './cluster-dns-ip.js';
import { parseFlags, usage, UsageError, type FlagSpec } from './flags.js';
import { runAsComponent } from '../trace/component-context.js';
import { configureTracing, shutdownTracing } from '../trace/tracing.js';
import { componentServiceName, TRACING_FLAGS, tracingFromFlags } from './tracing-flags.js';

const SERVER_FLAGS = {
  ...APISERVER_FLAGS,
  disable: { type: 'string', default: '', description: 'comma-separated components not to run inside skiff server (e.g. kubelet,scheduler), or "all"' },
} satisfies FlagSpec;

function help(components: ComponentCommand[]): string {
  const rows: [string, string][] = [
    ['server', 'Run a whole single-node cluster: the API server and every component, in one process.'],
    ['apiserver', 'Run the API server.'],
    ...components.map((c): [string, string] => [c.name, c.summary]),
  ];
  return ['skiff: a Kubernetes-compatible container orchestrator', '', 'Usage: skiff <command> [flags]', '', 'Commands:', ...rows.map(([n, s]) => `  ${n.padEnd(20)} ${s}`), '', 'Run `skiff <command> --help` for its flags.'].join('\n');
}

/** Calls `stop` once on SIGINT/SIGTERM, then exits. */
function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'shutting down', signal })}\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

/** Starts a component in the background; its failure is logged, not fatal to the others. */
function startComponent(c: ComponentCommand, flags: FlagValues, ctx: Parameters<ComponentCommand['run']>[1]): Promise<void> {
  return c.run(flags, ctx).catch((err: unknown) => {
    ctx.logger.error('component failed', { component: c.name, error: err instanceof Error ? err.stack : String(err) });
  });
}

/**
 * `skiff server`'s flags: the API server's, `--disable`, and every component
 * flag whose name only one component declares (e.g. `--keep-pods`,
 * `--node-labels`, `--controllers`), forwarded to that component. Names several
 * components share (ports, `--kubeconfig`) keep their in-process defaults.
 */
function serverFlagSpec(all: ComponentCommand[]): { spec: FlagSpec; owner: Map<string, ComponentCommand> } {
  // only what `skiff server` runs: one-shot commands (images, token, dashboard…) neither claim nor shadow flags
  const components = all.filter((c) => c.serverOrder !== undefined);
  const serverName = (c: ComponentCommand, name: string) => c.serverFlags?.[name] ?? name;
  const count = new Map<string, number>();
  for (const c of components) for (const name of Object.keys(c.flags)) count.set(serverName(c, name), (count.get(serverName(c, name)) ?? 0) + 1);
  const owner = new Map<string, ComponentCommand>();
  const spec: FlagSpec = { ...SERVER_FLAGS };
  for (const c of components) {
    for (const [name, f] of Object.entries(c.flags)) {
      const as = serverName(c, name);
      if (count.get(as) !== 1 || as in SERVER_FLAGS) continue;
      owner.set(as, c);
      spec[as] = { ...f, description: `${c.name}: ${f.description}` };
    }
  }
  return { spec, owner };
}

/** Splits server args into the API server's and each component's (`--name value` or `--name=value`). */
function splitArgs(args: string[], spec: FlagSpec, owner: Map<string, ComponentCommand>): { api: string[]; perComponent: Map<string, string[]> } {
  const api: string[] = [];
  const perComponent = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, '').split('=')[0];
    const takesValue = spec[name]?.type === 'string' && !args[i].includes('=');
    const chunk = takesValue ? [args[i], args[i + 1]] : [args[i]];
    if (takesValue) i++;
    const c = owner.get(name);
    // a flag renamed for skiff server goes to its component under the component's own name
    const own = c && Object.entries(c.serverFlags ?? {}).find(([, as]) => as === name)?.[0];
    if (own) chunk[0] = chunk[0].replace(`--${name}`, `--${own}`);
    if (c) perComponent.set(c.name, [...(perComponent.get(c.name) ?? []), ...chunk]);
    else if (name !== 'disable') api.push(...chunk);
  }
  return { api, perComponent };
}

async function runServer(args: string[], components: ComponentCommand[], apiOnly: boolean): Promise<void> {
  const { spec, owner } = serverFlagSpec(components);
  const flags = parseFlags(args, apiOnly ? APISERVER_FLAGS : spec) as FlagValues;
  const { api, perComponent } = apiOnly ? { api: args, perComponent: new Map<string, string[]>() } : splitArgs(args, spec, owner);
  const logger = createLogger(apiOnly ? 'apiserver' : 'server');
  // before any component starts: the context manager must exist for components to run as themselves
  await configureTracing(tracingFromFlags(flags));
  const startApi = () => startApiServer(api, logger.with({ component: 'apiserver' }));
  // the API server hands each request's trace along explicitly; a lone one enters no async context, which would turn on
  // promise hooks for every await in the process (the components of `skiff server` need it, and pay for it)
  const running = await (apiOnly ? startApi() : runAsComponent(componentServiceName('apiserver'), startApi));
  const stopComponents = new AbortController();
  const disabled = new Set(String(flags.disable ?? '').split(',').filter(Boolean));
  const started: Promise<void>[] = [];
  if (!apiOnly) {
    const clusterDNS = disabled.has('dns') || disabled.has('all') ? undefined : tenthAddress(String(flags['service-cluster-ip-range'] ?? '10.96.0.0/12'));
    for (const c of components.filter((x) => x.serverOrder !== undefined && !disabled.has(x.name) && !disabled.has('all')).sort((a, b) => a.serverOrder! - b.serverOrder!)) {
      const cflags = parseFlags(perComponent.get(c.name) ?? [], c.flags) as FlagValues;
      started.push(runAsComponent(componentServiceName(c.name), () => startComponent(c, cflags, { logger: createLogger(c.name), signal: stopComponents.signal, server: { kubeconfig: running.kubeconfigPath, dataDir: String(flags['data-dir']), clusterDNS, credentials: running.credentials } })));
    }
  }
  onShutdown(async () => {
    stopComponents.abort();
    await Promise.all(started);
    await running.stop();
    await shutdownTracing();
  });
  process.stdout.write(`skiff ${apiOnly ? 'apiserver' : 'server'} is serving on port ${running.port}\nexport KUBECONFIG=${running.kubeconfigPath}\n`);
}

/** Returns an exit code, or -1 when a daemon keeps running until a signal. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const components = [...COMPONENTS];
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help(components)}\n`);
    return name ? 0 : 2;
  }
  const component = components.find((c) => c.name === name);
  const daemon = component?.serverOrder !== undefined;
  const componentSpec: FlagSpec | undefined = component && daemon ? { ...component.flags, ...TRACING_FLAGS } : component?.flags;
  const spec: FlagSpec | undefined = name === 'server' ? serverFlagSpec(components).spec : name === 'apiserver' ? APISERVER_FLAGS : componentSpec;
  const summary = name === 'server' ? 'Run a whole single-node cluster.' : name === 'apiserver' ? 'Run the API server.' : (component?.summary ?? '');
  if (!spec) {
    process.stderr.write(`unknown command ${JSON.stringify(name)}\n\n${help(components)}\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage(name, summary, spec)}\n`);
    return 0;
  }
  installFatalHandlers(createLogger(name));
  try {
    if (name === 'server' || name === 'apiserver') {
      await runServer(args, components, name === 'apiserver');
      return -1;
    }
    const flags = parseFlags(args, componentSpec!, component!.positionals) as FlagValues;
    if (daemon) await configureTracing(tracingFromFlags(flags));
    const stop = new AbortController();
    const done = runAsComponent(componentServiceName(name), () => component!.run(flags, { logger: createLogger(name), signal: stop.signal }));
    onShutdown(async () => {
      stop.abort();
      await done;
      await shutdownTracing();
    });
    await done;
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${usage(name, summary, spec)}\n`);
      return 2;
    }
    if (err instanceof IntegrityError || err instanceof NetworkError || err instanceof KubeconfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    // a command's request the server refused: its Status, as kubectl prints it (no stack trace)
    if (err instanceof ApiError) {
      process.stderr.write(err.reason === 'Unknown' ? `Error from server: ${err.message}\n` : `Error from server (${err.reason}): ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
