import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../machinery/logger.js';
import type { Storage } from '../storage/storage.js';
import { SqliteStorage } from '../storage/sqlite/index.js';
import { bootstrapCluster } from './bootstrap.js';
import { ensurePki, issueClientCertificate, type CertificateKeyPair, type Pki } from './pki/index.js';
import { DEFAULT_REQUEST_HEADERS, RequestHeaderAuthenticator, type RequestHeaderOptions } from './authentication/request-header.js';
import { X509Authenticator } from './authentication/x509.js';
import { AnonymousAuthenticator } from './authentication/anonymous.js';
import { PUBLIC_INFO_PATHS } from './authorization/public-info.js';
import type { RequestPipelineOptions } from './request-pipeline.js';
import { ApiServer } from './server.js';
import type { ServingLimits } from './filters/serving-limits.js';
import type { WatchSettings } from './handlers/watch.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

export interface InProcessServer {
  server: ApiServer;
  storage: Storage;
  port: number;
  pki: Pki;
  /** A request as the admin (or as the given client certificate, or with none). */
  request(method: string, path: string, opts?: { body?: unknown; contentType?: string; headers?: Record<string, string | string[]>; client?: CertificateKeyPair | null }): Promise<Reply>;
  /** TLS options for a hand-made request as the admin. */
  tlsOptions(): { ca: string; cert: string; key: string; agent: false };
  /** A client certificate for another user, signed by the cluster CA. */
  clientCertificate(user: string, groups?: string[]): Promise<CertificateKeyPair>;
  stop(): Promise<void>;
}

/** A real API server over SQLite in a temporary directory, for the API server's own tests. */
export async function startInProcessServer(
  opts: {
    pipeline?: RequestPipelineOptions;
    storage?: (dir: string) => Storage;
    limits?: Partial<ServingLimits>;
    watch?: Partial<WatchSettings>;
    /** Serve as `skiff apiserver` does: the request-header authenticator with the generated front-proxy CA, the extension-apiserver-authentication ConfigMap, the aggregator's client certificate. */
    frontProxy?: boolean;
  } = {},
): Promise<InProcessServer> {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-apiserver-'));
  const pki = await ensurePki(dir, { hosts: [] });
  const requestHeader: RequestHeaderOptions | undefined = opts.frontProxy ? { clientCaPem: pki.frontProxyCa.certPem, allowedNames: ['front-proxy-client'], ...DEFAULT_REQUEST_HEADERS } : undefined;
  const pipeline: RequestPipelineOptions | undefined = requestHeader
    ? { ...opts.pipeline, authenticators: () => [new RequestHeaderAuthenticator(requestHeader), new X509Authenticator({ clientCaPem: pki.ca.certPem }), new AnonymousAuthenticator(PUBLIC_INFO_PATHS)] }
    : opts.pipeline;
  const storage = opts.storage ? opts.storage(dir) : SqliteStorage.open({ path: join(dir, 'state.db') });
  const logger = createLogger('apiserver-test', {}, () => {});
  const server = new ApiServer({
    storage,
    tls: { caPem: pki.ca.certPem, certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, extraClientCaPems: requestHeader ? [requestHeader.clientCaPem] : [] },
    ...(requestHeader ? { aggregator: { proxyClient: pki.frontProxyClient } } : {}),
    bindAddress: '127.0.0.1',
    port: 0,
    logger,
    pipeline,
    limits: opts.limits,
    watch: opts.watch,
  });
  const port = await server.start();
  try {
    // an advertise address must not be loopback (EndpointSlice validation); nothing dials it in these tests
    await bootstrapCluster(server.apiRegistry, { advertiseAddress: '10.0.0.1', port, logger, ...(requestHeader ? { caPem: pki.ca.certPem, requestHeader } : {}) });
  } catch (err) {
    await server.stop();
    await storage.close();
    throw err;
  }
  const agent = new https.Agent({ keepAlive: false });
  return {
    server,
    storage,
    port,
    pki,
    request(method, path, { body, contentType, headers = {}, client } = {}) {
      const cert = client === undefined ? pki.admin : client;
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      return new Promise<Reply>((resolve, reject) => {
        const req = https.request(
          {
            host: '127.0.0.1',
            port,
            path,
            method,
            agent,
            ca: pki.ca.certPem,
            ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}),
            headers: { Accept: 'application/json', ...(payload !== undefined ? { 'Content-Type': contentType ?? 'application/json' } : {}), ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString();
              resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    tlsOptions: () => ({ ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, agent: false }),
    clientCertificate: (user, groups = []) => issueClientCertificate(pki, { commonName: user, organizations: groups }),
    async stop() {
      await server.stop();
      await storage.close();
      agent.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
