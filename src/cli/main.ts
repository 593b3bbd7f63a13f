import { readdir } from 'node:fs/promises';
import { createLogger } from '../machinery/logger.js';
import { APISERVER_FLAGS, startApiServer } from './apiserver.js';
import type { ComponentCommand, FlagValues } from './command.js';
import { parseFlags, usage, UsageError, type FlagSpec } from './flags.js';

const SERVER_FLAGS = {
  ...APISERVER_FLAGS,
  disable: { type: 'string', default: '', description: 'comma-separated components not to run inside skiff server (e.g. kubelet,scheduler), or "all"' },
} satisfies FlagSpec;

/** Every component command in ./commands/ (one file each, exporting `command`). */
async function loadComponents(): Promise<ComponentCommand[]> {
  const dir = new URL('./commands/', import.meta.url);
  const files = (await readdir(dir)).filter((f) => /\.(ts|js)$/.test(f) && !f.includes('.test.')).sort();
  const out: ComponentCommand[] = [];
  for (const f of files) {
    const mod = (await import(new URL(f, dir).href)) as { command?: ComponentCommand };
    if (mod.command) out.push(mod.command);
  }
  return out;
}

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

async function runServer(args: string[], components: ComponentCommand[], apiOnly: boolean): Promise<void> {
  const flags = parseFlags(args, apiOnly ? APISERVER_FLAGS : SERVER_FLAGS);
  const apiArgs = args.filter((a, i) => !a.startsWith('--disable') && !(args[i - 1] === '--disable'));
  const logger = createLogger(apiOnly ? 'apiserver' : 'server');
  const running = await startApiServer(apiArgs, logger.with({ component: 'apiserver' }));
  const stopComponents = new AbortController();
  const disabled = new Set(String((flags as FlagValues).disable ?? '').split(',').filter(Boolean));
  const started: Promise<void>[] = [];
  if (!apiOnly) {
    for (const c of components.filter((x) => x.serverOrder !== undefined && !disabled.has(x.name) && !disabled.has('all')).sort((a, b) => a.serverOrder! - b.serverOrder!)) {
      const cflags = parseFlags([], c.flags) as FlagValues;
      started.push(startComponent(c, cflags, { logger: createLogger(c.name), signal: stopComponents.signal, server: { kubeconfig: running.kubeconfigPath, dataDir: flags['data-dir'] } }));
    }
  }
  onShutdown(async () => {
    stopComponents.abort();
    await Promise.all(started);
    await running.stop();
  });
  process.stdout.write(`skiff ${apiOnly ? 'apiserver' : 'server'} is serving on port ${running.port}\nexport KUBECONFIG=${running.kubeconfigPath}\n`);
}

/** Returns an exit code, or -1 when a daemon keeps running until a signal. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const components = await loadComponents();
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help(components)}\n`);
    return name ? 0 : 2;
  }
  const component = components.find((c) => c.name === name);
  const spec: FlagSpec | undefined = name === 'server' ? SERVER_FLAGS : name === 'apiserver' ? APISERVER_FLAGS : component?.flags;
  const summary = name === 'server' ? 'Run a whole single-node cluster.' : name === 'apiserver' ? 'Run the API server.' : (component?.summary ?? '');
  if (!spec) {
    process.stderr.write(`unknown command ${JSON.stringify(name)}\n\n${help(components)}\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage(name, summary, spec)}\n`);
    return 0;
  }
  try {
    if (name === 'server' || name === 'apiserver') {
      await runServer(args, components, name === 'apiserver');
      return -1;
    }
    const flags = parseFlags(args, component!.flags) as FlagValues;
    const stop = new AbortController();
    const done = component!.run(flags, { logger: createLogger(name), signal: stop.signal });
    onShutdown(async () => {
      stop.abort();
      await done;
    });
    await done;
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${usage(name, summary, spec)}\n`);
      return 2;
    }
    throw err;
  }
}
