import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Secret } from 'kubernetes-types/core/v1.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  bootstrapTokenSecret,
  DEFAULT_NODE_TOKEN_GROUP,
  generateBootstrapToken,
  parseBootstrapToken,
  secretValue,
  TOKEN_KEYS,
} from '../../api/bootstrap-token.js';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { caCertHash } from '../../machinery/ca-cert-hash.js';
import { InvalidDurationError, parseDuration } from '../../machinery/duration.js';
import type { ComponentCommand, FlagValues } from '../command.js';
import { UsageError } from '../flags.js';
import { SECRETS } from '../../api/resource-refs.js';

function kubeconfigPath(flags: FlagValues): string {
  const explicit = String(flags.kubeconfig || process.env.KUBECONFIG || '');
  if (explicit) return explicit;
  const fallback = resolve(String(flags['data-dir'] || '.skiff'), 'admin.kubeconfig');
  if (!existsSync(fallback)) throw new UsageError(`no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run where ${fallback} exists`);
  return fallback;
}

function ttl(flags: FlagValues): Date | undefined {
  try {
    const ms = parseDuration(String(flags.ttl));
    return ms > 0 ? new Date(Date.now() + ms) : undefined;
  } catch (err) {
    if (err instanceof InvalidDurationError) throw new UsageError(`invalid --ttl: ${err.message}`);
    throw err;
  }
}

async function create(client: Client, flags: FlagValues, positional: string | undefined, kubeconfig: string): Promise<void> {
  const token = positional || generateBootstrapToken();
  if (!parseBootstrapToken(token)) throw new UsageError(`the bootstrap token "${token}" was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"`);
  const usages = String(flags.usages).split(',').map((u) => u.trim()).filter(Boolean);
  for (const u of usages) if (u !== 'authentication' && u !== 'signing') throw new UsageError(`invalid bootstrap token usage "${u}" (valid: authentication, signing)`);
  const groups = String(flags.groups).split(',').map((g) => g.trim()).filter(Boolean);
  const secret = bootstrapTokenSecret({ token, expires: ttl(flags), description: String(flags.description || ''), groups, usages: usages as ('authentication' | 'signing')[] });
  await client.resource<Secret>(SECRETS).namespace(BOOTSTRAP_TOKEN_NAMESPACE).create(secret);
  if (!flags['print-join-command']) {
    process.stdout.write(`${token}\n`);
    return;
  }
  const config = loadKubeconfig(kubeconfig);
  const ca = config.ca === undefined ? undefined : config.ca.toString();
  const hash = ca ? ` --ca-cert-hash ${caCertHash(ca)}` : '';
  process.stdout.write(`skiff kubelet --server ${config.server} --token ${token}${hash}\n`);
}

async function list(client: Client): Promise<void> {
  const secrets = await client.resource<Secret>(SECRETS).namespace(BOOTSTRAP_TOKEN_NAMESPACE).list({ fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` });
  const rows = secrets.items.map((s) => {
    const usages = Object.keys(s.data ?? {}).filter((k) => k.startsWith('usage-bootstrap-') && secretValue(s, k) === 'true').map((k) => k.slice('usage-bootstrap-'.length));
    return [
      `${secretValue(s, TOKEN_KEYS.id) ?? ''}.${secretValue(s, TOKEN_KEYS.secret) ?? ''}`,
      secretValue(s, TOKEN_KEYS.expiration) ?? '<forever>',
      usages.join(','),
      secretValue(s, TOKEN_KEYS.description) ?? '<none>',
      secretValue(s, TOKEN_KEYS.extraGroups) ?? '',
    ];
  });
  const header = ['TOKEN', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows]) process.stdout.write(`${r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i] + 3) : c)).join('')}\n`);
}

async function remove(client: Client, ids: string[]): Promise<void> {
  if (ids.length === 0) throw new UsageError('token delete needs at least one token or token id');
  for (const t of ids) {
    const id = parseBootstrapToken(t)?.id ?? t;
    if (!/^[a-z0-9]{6}$/.test(id)) throw new UsageError(`given token or token id "${t}" didn't match pattern "[a-z0-9]{6}" or "[a-z0-9]{6}.[a-z0-9]{16}"`);
    try {
      await client.resource<Secret>(SECRETS).namespace(BOOTSTRAP_TOKEN_NAMESPACE).delete(`${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`);
    } catch (err) {
      if (isNotFound(err)) throw new UsageError(`bootstrap token "${id}" not found`);
      throw err;
    }
    process.stdout.write(`bootstrap token "${id}" deleted\n`);
  }
}

/** `skiff token create|list|delete`, as `kubeadm token`: join tokens for `skiff kubelet --token`. */
export const command: ComponentCommand = {
  name: 'token',
  summary: 'Manage bootstrap tokens (`token create [--print-join-command]`, `token list`, `token delete ID`) that let nodes join with `skiff kubelet --token`.',
  positionals: true,
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of an admin (default $KUBECONFIG, else <data-dir>/admin.kubeconfig)' },
    'data-dir': { type: 'string', default: '', description: 'data dir of the skiff server (default ./.skiff)' },
    ttl: { type: 'string', default: '24h0m0s', description: 'how long the token is valid ("0" never expires)' },
    description: { type: 'string', default: '', description: 'a human friendly description of the token' },
    groups: { type: 'string', default: DEFAULT_NODE_TOKEN_GROUP, description: 'extra groups the token authenticates as (each system:bootstrappers:…)' },
    usages: { type: 'string', default: 'signing,authentication', description: 'ways the token may be used' },
    'print-join-command': { type: 'boolean', default: false, description: 'print the whole `skiff kubelet` command that joins a node' },
  },
  async run(flags) {
    const [verb, ...rest] = (flags._ as string[] | undefined) ?? [];
    const kubeconfig = kubeconfigPath(flags);
    const client = new Client(loadKubeconfig(kubeconfig), { component: 'skiff-token' });
    try {
      if (verb === 'create') return await create(client, flags, rest[0], kubeconfig);
      if (verb === 'list') return await list(client);
      if (verb === 'delete') return await remove(client, rest);
      throw new UsageError(`unknown token command ${JSON.stringify(verb ?? '')}, want create, list or delete`);
    } finally {
      client.close();
    }
  },
};
