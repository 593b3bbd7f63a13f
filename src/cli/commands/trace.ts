import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '../../client/rest/client.js';
import { loadKubeconfig } from '../../client/rest/kubeconfig.js';
import type { ObjectTrace } from '../../trace/journey.js';
import type { ComponentCommand, FlagValues } from '../command.js';
import { UsageError } from '../flags.js';
import { TIMELINE_HEADER, renderJourney, timelineLines } from '../trace/render-journey.js';
import { resolveResourceType, type ResolvedType } from '../trace/resolve-type.js';

const OUTPUTS = ['text', 'json', 'otlp'];

function kubeconfigPath(flags: FlagValues): string {
  const path = String(flags.kubeconfig || process.env.KUBECONFIG || '');
  if (path) return path;
  const local = resolve('.skiff/admin.kubeconfig');
  if (existsSync(local)) return local;
  throw new UsageError('--kubeconfig is required (or $KUBECONFIG, or a skiff server data dir ./.skiff here)');
}

/** `deployment/web` or `deployment web`. */
function target(args: string[]): { type: string; name: string } {
  const [first, second] = args;
  if (first?.includes('/') && !second) {
    const [type, name] = first.split('/', 2);
    if (type && name) return { type, name };
  }
  if (first && second && args.length === 2) return { type: first, name: second };
  throw new UsageError('want one object: TYPE/NAME (e.g. deployment/web) or TYPE NAME');
}

function tracePath(t: ResolvedType, namespace: string, name: string): string {
  const scope = t.namespaced ? `namespaces/${encodeURIComponent(namespace)}/` : '';
  return `/apis/trace.skiff.dev/v1/${scope}${encodeURIComponent(t.qualified)}/${encodeURIComponent(name)}`;
}

export const command: ComponentCommand = {
  name: 'trace',
  summary: 'Show the causal journey of an object across the components: `trace deployment/web [-n ns] [--follow] [-o text|json|otlp]`.',
  positionals: true,
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (default $KUBECONFIG, then ./.skiff/admin.kubeconfig)' },
    namespace: { type: 'string', short: 'n', default: '', description: 'namespace of the object (default: the kubeconfig context\'s, else "default")' },
    output: { type: 'string', short: 'o', default: 'text', description: 'text (timeline, sequence diagram, critical path), json (the trace query API\'s ObjectTrace) or otlp (OTLP/JSON)' },
    follow: { type: 'boolean', short: 'f', default: false, description: 'keep printing new spans as they arrive, until interrupted' },
    limit: { type: 'string', default: '20', description: 'newest traces shown at most' },
  },
  async run(flags, ctx) {
    const output = String(flags.output);
    if (!OUTPUTS.includes(output)) throw new UsageError(`--output must be one of ${OUTPUTS.join(', ')}, not ${JSON.stringify(output)}`);
    if (flags.follow && output !== 'text') throw new UsageError('--follow prints text only');
    const { type, name } = target((flags._ as string[] | undefined) ?? []);
    const config = loadKubeconfig(kubeconfigPath(flags));
    const namespace = String(flags.namespace || config.namespace || 'default');
    const client = new Client({ ...config, qps: -1 }, { component: 'trace' });
    try {
      const resolved = await resolveResourceType(client.rest, type);
      if (!resolved) throw new UsageError(`the server doesn't have a resource type "${type}"`);
      const path = tracePath(resolved, namespace, name);
      const limit = String(flags.limit);
      const what = `${resolved.qualified}/${name}${resolved.namespaced ? ` in namespace ${namespace}` : ''}`;
      if (output === 'otlp') {
        process.stdout.write(`${JSON.stringify(await client.rest.request({ method: 'GET', path, query: { format: 'otlp', limit } }), null, 2)}\n`);
        return;
      }
      const fetchTrace = () => client.rest.request<ObjectTrace>({ method: 'GET', path, query: { limit }, signal: ctx.signal });
      const trace = await fetchTrace();
      if (output === 'json') {
        process.stdout.write(`${JSON.stringify(trace, null, 2)}\n`);
        return;
      }
      process.stdout.write(renderJourney(trace, what));
      if (flags.follow) await follow(trace, fetchTrace, ctx.signal);
    } finally {
      client.close();
    }
  },
};

/** Polls the trace query API once a second and prints the spans not printed yet. */
async function follow(first: ObjectTrace, fetchTrace: () => Promise<ObjectTrace>, signal: AbortSignal): Promise<void> {
  const printed = new Set(first.traces.flatMap((t) => t.spans.map((s) => s.spanId)));
  process.stdout.write(`\nFollowing (Ctrl-C to stop):\n${TIMELINE_HEADER}\n`);
  while (!signal.aborted) {
    await new Promise<void>((r) => {
      const timer = setTimeout(r, 1000);
      signal.addEventListener('abort', () => (clearTimeout(timer), r()), { once: true });
    });
    if (signal.aborted) return;
    let next: ObjectTrace;
    try {
      next = await fetchTrace();
    } catch (err) {
      if (signal.aborted) return;
      process.stderr.write(`trace: ${err instanceof Error ? err.message : String(err)}\n`);
      continue;
    }
    for (const t of next.traces) {
      const fresh = t.spans.filter((s) => !printed.has(s.spanId));
      for (const s of fresh) printed.add(s.spanId);
      if (fresh.length) process.stdout.write(`${timelineLines(t, fresh).join('\n')}\n`);
    }
  }
}
