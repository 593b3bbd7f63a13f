import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapCluster } from '../apiserver/bootstrap.js';
import { renderKubeconfig, ADMIN_USER } from '../apiserver/pki/index.js';
import { ApiServer } from '../apiserver/server.js';
import { Client } from '../client/rest/client.js';
import type { RestConfig } from '../client/rest/rest-config.js';
import { createLogger, type Logger } from '../machinery/logger.js';
import { inMemoryStorage, type Storage } from '../apiserver/in-memory-storage.js';
import { testPki } from './test-pki.js';
import { NAMESPACES } from '../api/resource-refs.js';

export interface TestApiServerOptions {
  /** Namespaces to create besides the system ones (default, kube-system, kube-public, kube-node-lease). */
  namespaces?: string[];
  /** Serve lists and watches through the watch cache, as `skiff server` does. Default false: straight from storage. */
  watchCache?: boolean;
  /** Milliseconds between watch bookmarks. Default 1,000. */
  bookmarkIntervalMs?: number;
  /** Where the server logs. Default: nowhere. */
  logger?: Logger;
}

export interface TestApiServer {
  /** An admin kubeconfig file for the server (for kubectl, @kubernetes/client-node, other processes). */
  kubeconfigPath: string;
  /** The same kubeconfig as YAML text. */
  kubeconfig: string;
  /** The kubeconfig's connection settings, for more `Client`s. */
  restConfig: RestConfig;
  /** An admin client (no client-side rate limit). */
  client: Client;
  /** The API server's URL (`https://127.0.0.1:<port>`). */
  url: string;
  /** The storage the server runs on (in memory). */
  storage: Storage;
  /** Discards history up to the current revision: older resourceVersions then get 410 Gone. */
  compact(): Promise<void>;
  /** Stops the server, closes the client and forgets every object. */
  stop(): Promise<void>;
}

const quiet: Logger = createLogger('apiserver', {}, () => {});

/**
 * The real API server (admission, validation, defaulting, optimistic
 * concurrency, watches, field and label selectors) over in-memory storage on
 * a loopback port. Each call gets its own server and its own objects.
 */
export async function startTestApiServer(options: TestApiServerOptions = {}): Promise<TestApiServer> {
  const pki = await testPki();
  const storage = inMemoryStorage(options.watchCache === undefined ? {} : { watchCache: options.watchCache });
  const logger = options.logger ?? quiet;
  const server = new ApiServer({
    storage,
    tls: { caPem: pki.ca.certPem, certPem: pki.serving.certPem, keyPem: pki.serving.keyPem },
    kubeletClient: { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem },
    bindAddress: '127.0.0.1',
    port: 0,
    logger,
    watch: { bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000 },
  });
  let dir: string | undefined;
  let client: Client | undefined;
  try {
    const port = await server.start();
    await bootstrapCluster(server.apiRegistry, { advertiseAddress: advertiseAddress(), port, logger });
    const url = `https://127.0.0.1:${port}`;
    const restConfig: RestConfig = { server: url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, qps: -1 };
    client = new Client(restConfig, { component: 'skiff-testing' });
    for (const name of options.namespaces ?? []) {
      await client.resource(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    const kubeconfig = renderKubeconfig({ server: url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: ADMIN_USER });
    dir = await mkdtemp(join(tmpdir(), 'skiff-testing-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
    const owned = { client, dir };
    let stopped: Promise<void> | undefined;
    return {
      kubeconfigPath,
      kubeconfig,
      restConfig,
      client,
      url,
      storage,
      compact: async () => storage.compact(await storage.currentRevision()),
      stop: () => (stopped ??= shutdown(server, storage, owned)),
    };
  } catch (err) {
    await shutdown(server, storage, { client, dir }).catch(() => undefined);
    throw err;
  }
}

/** The `kubernetes` Service's endpoint: upstream refuses loopback there, so a local interface (or TEST-NET-1). */
function advertiseAddress(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '192.0.2.1';
}

async function shutdown(server: ApiServer, storage: Storage, owned: { client?: Client | undefined; dir?: string | undefined }): Promise<void> {
  owned.client?.close();
  await server.stop();
  await storage.close();
  if (owned.dir) await rm(owned.dir, { recursive: true, force: true });
}
