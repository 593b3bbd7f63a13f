import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Authenticated, Authenticator } from './authenticator.js';

/**
 * Client certificates signed by the cluster CA: the subject's common name is
 * the user, its organizations are the groups (as upstream's x509 authenticator).
 * The TLS layer has already verified the chain; an unverified certificate is
 * no credential at all. When the TLS layer also trusts other CAs (the
 * front-proxy CA), `clientCaPem` names the one whose certificates are users.
 */
export class X509Authenticator implements Authenticator {
  readonly name = 'x509';
  /** A connection's certificate is fixed for its life; decoding it once serves every request on it. */
  private readonly bySocket = new WeakMap<TLSSocket, Authenticated | undefined>();
  private readonly clientCa?: X509Certificate;

  constructor(opts: { clientCaPem?: string } = {}) {
    if (opts.clientCaPem) this.clientCa = new X509Certificate(opts.clientCaPem);
  }

  async authenticate(req: IncomingMessage): Promise<Authenticated | undefined> {
    const socket = req.socket as TLSSocket;
    if (!socket.authorized || typeof socket.getPeerCertificate !== 'function') return undefined;
    if (!this.bySocket.has(socket)) this.bySocket.set(socket, this.fromCertificate(socket));
    const found = this.bySocket.get(socket);
    // a copy: later stages may add to the user (groups, extra)
    return found && { user: { ...found.user, groups: [...(found.user.groups ?? [])] } };
  }

  private fromCertificate(socket: TLSSocket): Authenticated | undefined {
    if (this.clientCa && !issuedBy(socket, this.clientCa)) return undefined;
    const subject = socket.getPeerCertificate().subject as Partial<Record<string, string | string[]>> | undefined;
    const name = first(subject?.CN);
    if (!name) return undefined;
    return { user: { name, groups: all(subject?.O) } };
  }
}

function issuedBy(socket: TLSSocket, ca: X509Certificate): boolean {
  const raw = socket.getPeerCertificate()?.raw;
  if (!raw?.length) return false;
  try {
    const cert = new X509Certificate(raw);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function all(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? [...v] : [v];
}
