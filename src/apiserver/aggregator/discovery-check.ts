import https from 'node:https';
import type { APIService } from '../../api/types/apiregistration/v1.js';
import { describeBackendError, type Backend } from './backend.js';

/** How long one discovery check may take (upstream: a 5 s client timeout). */
const CHECK_TIMEOUT_MS = 5000;

/** A discovery check that failed; the message is the condition's. */
export class DiscoveryCheckError extends Error {
  override readonly name = 'DiscoveryCheckError';
}

/**
 * GETs the one URL an extension API server must serve, its
 * `/apis/<group>/<version>`, as `system:kube-aggregator` in `system:masters`
 * (upstream's availability check sets these request headers so access rights
 * never fail it), and returns the parsed document. Failures read as upstream's
 * `failing or missing response from <url>: …` / `bad status from <url>: <code>`.
 */
export function fetchDiscovery(backend: Backend, svc: APIService, signal?: AbortSignal): Promise<unknown> {
  const path = svc.spec?.group ? `/apis/${svc.spec.group}/${svc.spec.version ?? ''}` : `/api/${svc.spec?.version ?? ''}`;
  const url = `${backend.origin}${path}`;
  const deadline = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: backend.host,
        port: backend.port,
        path,
        method: 'GET',
        agent: false,
        ...backend.tls,
        headers: { Accept: 'application/json', 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' },
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new DiscoveryCheckError(`failing or missing response from ${url}: ${err.message}`)));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(new DiscoveryCheckError(`bad status from ${url}: ${status}`));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            // the check passes on any 2xx, as upstream's; only discovery goes without
            resolve(undefined);
          }
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why = deadline.aborted ? `context deadline exceeded (Client.Timeout exceeded while awaiting headers)` : describeBackendError(err, backend);
      reject(new DiscoveryCheckError(`failing or missing response from ${url}: Get "${url}": ${why}`));
    });
    req.end();
  });
}
