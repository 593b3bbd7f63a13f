import { createSecureContext, type SecureContext } from 'node:tls';

/** Distinct credential sets kept; far more than any one process uses. */
const MAX_ENTRIES = 64;
const contexts = new Map<string, SecureContext>();

/**
 * One TLS context per distinct CA/certificate/key: building one parses the
 * PEMs and imports the key (the costliest part of a new connection, more than
 * the handshake itself), and every client of the same kubeconfig shares it.
 */
export function secureContextFor(o: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer }): SecureContext {
  const id = [o.ca, o.cert, o.key].map((v) => (v === undefined ? '' : v.toString())).join('\0');
  let ctx = contexts.get(id);
  if (!ctx) {
    ctx = createSecureContext({ ca: o.ca, cert: o.cert, key: o.key });
    if (contexts.size >= MAX_ENTRIES) contexts.delete(contexts.keys().next().value!);
    contexts.set(id, ctx);
  }
  return ctx;
}
