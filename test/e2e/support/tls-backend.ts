import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCertificateAuthority, issueCertificate } from '../../../src/apiserver/pki/issue-certificate.js';

/** An HTTPS server on loopback with a CA of its own (what a webhook or an extension API server brings). */
export interface TlsBackend {
  port: number;
  /** The CA's PEM, base64-encoded as `caBundle` fields want it. */
  caBundle: string;
  url(path: string): string;
  close(): Promise<void>;
}

/** Starts one; the certificate names loopback plus `hosts` (e.g. `<svc>.<ns>.svc`). */
export async function startTlsBackend(hosts: string[], handle: (req: IncomingMessage, body: string, res: ServerResponse) => void, opts: { requestCert?: boolean } = {}): Promise<TlsBackend> {
  const ca = await generateCertificateAuthority('e2e-backend-ca');
  const serving = await issueCertificate(ca, { commonName: hosts[0] ?? 'backend', hosts: ['127.0.0.1', 'localhost', ...hosts], usages: ['serverAuth'] });
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, requestCert: opts.requestCert ?? false, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
