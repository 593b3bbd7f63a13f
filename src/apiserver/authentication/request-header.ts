import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { AuthenticationError, type Authenticated, type Authenticator } from './authenticator.js';
import type { UserInfo } from './user-info.js';

/** Upstream's `--requestheader-*` options. */
export interface RequestHeaderOptions {
  /** PEM of the CA that signs front-proxy client certificates (`--requestheader-client-ca-file`). */
  clientCaPem: string;
  /** Common names a front proxy's certificate may have; empty allows any signed by the CA (`--requestheader-allowed-names`). */
  allowedNames: readonly string[];
  /** Headers holding the user name, first non-empty wins (`--requestheader-username-headers`). */
  usernameHeaders: readonly string[];
  /** Headers holding groups, every value counts (`--requestheader-group-headers`). */
  groupHeaders: readonly string[];
  /** Prefixes of headers holding extra attributes (`--requestheader-extra-headers-prefix`). */
  extraHeaderPrefixes: readonly string[];
  /** Headers holding the user's uid (`--requestheader-uid-headers`). */
  uidHeaders?: readonly string[];
}

/** The defaults kubeadm configures and upstream publishes in extension-apiserver-authentication. */
export const DEFAULT_REQUEST_HEADERS = {
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
  uidHeaders: ['X-Remote-Uid'],
} as const;

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

/**
 * The request-header authenticator (upstream's requestheader): a front proxy
 * (an aggregator) that already authenticated the user passes it on in
 * `X-Remote-User`, `X-Remote-Group` and `X-Remote-Extra-<key>` headers, and
 * is believed only when its client certificate was signed by the
 * request-header CA and (if names are configured) has an allowed common
 * name. Without a user header it does not recognise the request. The headers
 * are removed once read, so nothing later mistakes them for the client's.
 */
export class RequestHeaderAuthenticator implements Authenticator {
  readonly name = 'requestheader';
  private readonly ca: X509Certificate;
  private readonly lowerPrefixes: string[];
  private readonly verified = new WeakMap<TLSSocket, string | undefined>();

  constructor(private readonly opts: RequestHeaderOptions) {
    this.ca = new X509Certificate(opts.clientCaPem);
    this.lowerPrefixes = opts.extraHeaderPrefixes.map((p) => p.toLowerCase());
  }

  async authenticate(req: IncomingMessage): Promise<Authenticated | undefined> {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    if (!this.verified.has(socket)) this.verified.set(socket, this.proxyName(socket));
    const proxy = this.verified.get(socket);
    // not a front proxy: the client's own certificate is someone else's business
    if (proxy === undefined) return undefined;
    if (this.opts.allowedNames.length && !this.opts.allowedNames.includes(proxy)) {
      throw new AuthenticationError(`x509: subject with cn=${proxy} is not in the allowed list`);
    }
    const name = this.opts.usernameHeaders.map((h) => headerValues(req, h)[0]).find((v) => v);
    if (!name) return undefined;
    const user: UserInfo = { name, groups: this.opts.groupHeaders.flatMap((h) => headerValues(req, h)) };
    const uid = (this.opts.uidHeaders ?? []).map((h) => headerValues(req, h)[0]).find((v) => v);
    if (uid) user.uid = uid;
    const extra: Record<string, string[]> = {};
    for (const header of Object.keys(req.headers)) {
      const prefix = this.lowerPrefixes.find((p) => header.startsWith(p));
      if (!prefix) continue;
      // the key is percent-encoded in the header name (upstream's unescapeExtraKey), values are as sent
      const key = safeDecode(header.slice(prefix.length)).toLowerCase();
      (extra[key] ??= []).push(...headerValues(req, header));
    }
    if (Object.keys(extra).length) user.extra = extra;
    this.clearHeaders(req);
    return { user };
  }

  /** The common name of a valid client certificate the request-header CA signed, else undefined. */
  private proxyName(socket: TLSSocket): string | undefined {
    const raw = socket.getPeerCertificate()?.raw;
    if (!raw?.length) return undefined;
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(raw);
    } catch {
      return undefined;
    }
    if (!cert.checkIssued(this.ca) || !cert.verify(this.ca.publicKey)) return undefined;
    const now = Date.now();
    if (now < Date.parse(cert.validFrom) || now > Date.parse(cert.validTo)) return undefined;
    if (cert.keyUsage?.length && !cert.keyUsage.includes(CLIENT_AUTH_OID)) return undefined;
    return /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '';
  }

  private clearHeaders(req: IncomingMessage): void {
    for (const h of [...this.opts.usernameHeaders, ...this.opts.groupHeaders, ...(this.opts.uidHeaders ?? [])]) delete req.headers[h.toLowerCase()];
    for (const header of Object.keys(req.headers)) if (this.lowerPrefixes.some((p) => header.startsWith(p))) delete req.headers[header];
  }
}

/** Every value of a header, repeated headers and comma-free values alike (Node joins repeats with ", " except for set-cookie). */
function headerValues(req: IncomingMessage, name: string): string[] {
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === lower && req.rawHeaders[i + 1] !== '') values.push(req.rawHeaders[i + 1]);
  }
  return values;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
