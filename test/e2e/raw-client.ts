import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * A minimal keep-alive HTTPS JSON client from an admin kubeconfig, for tests
 * and benchmarks that need raw requests. With `bearerToken` it authenticates
 * with that token instead of the kubeconfig's client certificate (the
 * server's CA is still the kubeconfig's).
 */
export function clientFromKubeconfig(path: string, maxSockets = 64, opts: { bearerToken?: string } = {}) {
  const kc = parse(readFileSync(path, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const server = new URL(kc.clusters[0].cluster.server);
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets,
    ca: b64(kc.clusters[0].cluster['certificate-authority-data']),
    ...(opts.bearerToken ? {} : { cert: b64(kc.users[0].user['client-certificate-data']), key: b64(kc.users[0].user['client-key-data']) }),
  });
  const auth: Record<string, string> = opts.bearerToken ? { Authorization: `Bearer ${opts.bearerToken}` } : {};
  /** Sends raw bytes with the given headers; resolves with whatever the server answered. */
  const send = (method: string, path: string, body: Buffer | undefined, headers: Record<string, string>): Promise<{ status: number; body: string; bytes: Buffer; headers: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const req = https.request(
        { host: server.hostname, port: server.port, method, path, agent, headers: { ...auth, ...headers, ...(body ? { 'Content-Length': body.length } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, body: bytes.toString(), bytes, headers: res.headers });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const request = (method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> =>
    send(method, path, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), { 'Content-Type': 'application/json', Accept: 'application/json' });
  /** Opens a watch and calls onLine for each event line; returns a close function. */
  const watch = (path: string, onEvent: (ev: { type: string; object: { metadata: { name: string } } }) => void): Promise<() => void> =>
    new Promise((resolve, reject) => {
      const req = https.request({ host: server.hostname, port: server.port, method: 'GET', path, agent: new https.Agent({ ca: agent.options.ca, cert: agent.options.cert, key: agent.options.key }) }, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line) onEvent(JSON.parse(line) as never);
          }
        });
        resolve(() => req.destroy());
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
  /** Opens a watch asking for protobuf (as client-go does) and calls onFrame with each WatchEvent message (the bytes after the 4-byte length). */
  const watchProtobuf = (path: string, onFrame: (frame: Buffer) => void): Promise<() => void> =>
    new Promise((resolve, reject) => {
      const headers = { Accept: 'application/vnd.kubernetes.protobuf, application/json' };
      const req = https.request({ ...target(path), method: 'GET', headers }, (res) => {
        let buf: Buffer = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
          while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
            const end = 4 + buf.readUInt32BE(0);
            onFrame(buf.subarray(4, end));
            buf = buf.subarray(end);
          }
        });
        resolve(() => req.destroy());
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
  /** Options for a long-lived request of one's own (its own agent): host, port, path and the client certificate. */
  const target = (path: string): https.RequestOptions => ({
    host: server.hostname,
    port: server.port,
    path,
    agent: new https.Agent({ ca: agent.options.ca, cert: agent.options.cert, key: agent.options.key }),
  });
  return { request, send, watch, watchProtobuf, target, close: () => agent.destroy() };
}
