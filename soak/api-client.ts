import { readFileSync } from 'node:fs';
import https from 'node:https';
import { parse } from 'yaml';

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  json: T;
}

/**
 * The admin's HTTPS JSON access to the API servers, with no retries of its
 * own: the soak must see every answer (and every failure) as it happened,
 * to know which writes were acknowledged. Each request goes to the next
 * endpoint in turn, so the API servers share the load and one down server
 * fails only some requests.
 */
export class ApiClient {
  readonly agent: https.Agent;
  private turn = 0;

  constructor(kubeconfig: string, private readonly ports: () => number[]) {
    const kc = parse(readFileSync(kubeconfig, 'utf8')) as {
      clusters: { cluster: { 'certificate-authority-data': string } }[];
      users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
    };
    const b64 = (s: string) => Buffer.from(s, 'base64');
    this.agent = new https.Agent({
      keepAlive: false,
      ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']),
      cert: b64(kc.users[0]!.user['client-certificate-data']),
      key: b64(kc.users[0]!.user['client-key-data']),
    });
  }

  /** The port the next request (or watch) goes to. */
  nextPort(): number {
    const ports = this.ports();
    return ports[this.turn++ % ports.length]!;
  }

  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, opts: { timeoutMs?: number; port?: number; contentType?: string } = {}): Promise<ApiAnswer<T>> {
    const port = opts.port ?? this.nextPort();
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string | number> = { accept: 'application/json' };
      if (data) {
        headers['content-type'] = opts.contentType ?? 'application/json';
        headers['content-length'] = data.length;
      }
      const req = https.request({ host: '127.0.0.1', port, method, path, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: T;
          try {
            json = (text ? JSON.parse(text) : {}) as T;
          } catch {
            json = { message: text.slice(0, 200) } as T;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('response aborted')));
      });
      req.setTimeout(opts.timeoutMs ?? 15_000, () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(data);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
