import { createLogger } from '../machinery/logger.js';
import { APISERVER_FLAGS, startApiServer } from './apiserver.js';
import { usage, UsageError } from './flags.js';

const COMMANDS: Record<string, { summary: string; flags: typeof APISERVER_FLAGS }> = {
  server: { summary: 'Run a whole single-node cluster: the API server and every component, in one process.', flags: APISERVER_FLAGS },
  apiserver: { summary: 'Run the API server.', flags: APISERVER_FLAGS },
};

function help(): string {
  return [
    'skiff: a Kubernetes-compatible container orchestrator',
    '',
    'Usage: skiff <command> [flags]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(20)} ${c.summary}`),
    '',
    'Run `skiff <command> --help` for its flags.',
  ].join('\n');
}

/** Waits for SIGINT/SIGTERM, then runs `stop` once. */
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

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${help()}\n`);
    return command ? 0 : 2;
  }
  const spec = COMMANDS[command];
  if (!spec) {
    process.stderr.write(`unknown command ${JSON.stringify(command)}\n\n${help()}\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage(command, spec.summary, spec.flags)}\n`);
    return 0;
  }
  try {
    switch (command) {
      case 'server':
      case 'apiserver': {
        const running = await startApiServer(args, createLogger(command === 'server' ? 'server' : 'apiserver'));
        onShutdown(() => running.stop());
        process.stdout.write(`skiff ${command} is serving on port ${running.port}\nexport KUBECONFIG=${running.kubeconfigPath}\n`);
        return -1;
      }
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${usage(command, spec.summary, spec.flags)}\n`);
      return 2;
    }
    throw err;
  }
  return 0;
}
