import https from 'node:https';
import { isIP } from 'node:net';

/** One HTTPS endpoint the API server calls out to (a webhook, a conversion webhook). */
export interface OutboundTarget {
  /** `https://host:port/path`; the host is what is dialled. */
  url: URL;
  /** PEM CA bundle to verify the server with; the system roots when absent. */
  caPem?: string;
  /** The name the server certificate must hold when it differs from the URL's host (Service references). */
  serverName?: string;
  /** Where to connect when it is not the URL's host and port (a Service's resolved address). */
  dial?: { host: string; port: number };
}

/** A call that did not produce a usable HTTP answer (dial, TLS, timeout, status, body). */
export class OutboundCallError extends Error {
  override readonly name = 'OutboundCallError';
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/**
 * POSTs a JSON document and parses the JSON answer, as upstream's webhook
 * REST client does: a non-2xx status, a body that is not JSON, TLS failures
 * and the deadline are all OutboundCallErrors whose text says which.
 */
export async function postJson(target: OutboundTarget, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const { url } = target;
  const host = target.dial?.host ?? url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.dial?.port ?? (url.port ? Number(url.port) : 443);
  const urlHost = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const deadline = AbortSignal.timeout(timeoutMs);
  const abort = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const where = `Post "${url.href}"`;
  return new Promise<unknown>((resolve, reject) => {
    const req = https.request(
      {
        method: 'POST',
        host,
        port,
        path: `${url.pathname}${url.search}`,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.length },
        ca: target.caPem || undefined,
        servername: target.serverName ?? (isIP(urlHost) ? undefined : urlHost),
        agent: false,
        signal: abort,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new OutboundCallError(`${where}: ${err.message}`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(new OutboundCallError(`the server responded with the status code ${status} but did not return more information`));
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new OutboundCallError(`${(err as Error).message}`));
          }
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (deadline.aborted) return reject(new OutboundCallError(`${where}: context deadline exceeded`, true));
      reject(new OutboundCallError(`${where}: ${describeNetError(err)}`));
    });
    req.end(payload);
  });
}

function describeNetError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${(err as { address?: string }).address ?? ''}:${(err as { port?: number }).port ?? ''}: connect: connection refused`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${err.message}`;
    default:
      return err.message;
  }
}
