import { readFile } from 'node:fs/promises';
import { DEFAULT_REQUEST_HEADERS, type RequestHeaderOptions } from '../apiserver/authentication/request-header.js';
import type { CertificateKeyPair, Pki } from '../apiserver/pki/index.js';
import { FRONT_PROXY_CLIENT_NAME } from '../apiserver/pki/pki.js';
import { UsageError, type FlagSpec } from './flags.js';

/** Upstream's request-header and proxy-client flags; empty files mean the front-proxy CA and client certificate skiff generates. */
export const REQUEST_HEADER_FLAGS = {
  'requestheader-client-ca-file': { type: 'string', default: '', description: 'CA whose client certificates may assert users in request headers (default: <data-dir>/pki/front-proxy-ca.crt)' },
  'requestheader-allowed-names': { type: 'string', default: FRONT_PROXY_CLIENT_NAME, description: 'comma-separated common names such a certificate may have (empty: any)' },
  'requestheader-username-headers': { type: 'string', default: DEFAULT_REQUEST_HEADERS.usernameHeaders.join(','), description: 'request headers holding the user name' },
  'requestheader-group-headers': { type: 'string', default: DEFAULT_REQUEST_HEADERS.groupHeaders.join(','), description: 'request headers holding the groups' },
  'requestheader-extra-headers-prefix': { type: 'string', default: DEFAULT_REQUEST_HEADERS.extraHeaderPrefixes.join(','), description: 'prefixes of request headers holding extra attributes' },
  'requestheader-uid-headers': { type: 'string', default: DEFAULT_REQUEST_HEADERS.uidHeaders.join(','), description: 'request headers holding the user uid' },
  'proxy-client-cert-file': { type: 'string', default: '', description: 'client certificate the aggregator presents to extension API servers (default: <data-dir>/pki/front-proxy-client.crt)' },
  'proxy-client-key-file': { type: 'string', default: '', description: 'its key' },
} satisfies FlagSpec;

type Flags = Record<keyof typeof REQUEST_HEADER_FLAGS, string>;

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The request-header authenticator's options and the aggregator's client certificate, from flags or the generated PKI. */
export async function requestHeaderFromFlags(flags: Flags, pki: Pki): Promise<{ requestHeader: RequestHeaderOptions; proxyClient: CertificateKeyPair }> {
  const read = async (flag: keyof Flags) => {
    try {
      return await readFile(flags[flag], 'utf8');
    } catch (err) {
      throw new UsageError(`--${flag}: ${(err as Error).message}`);
    }
  };
  const clientCaPem = flags['requestheader-client-ca-file'] ? await read('requestheader-client-ca-file') : pki.frontProxyCa.certPem;
  if (Boolean(flags['proxy-client-cert-file']) !== Boolean(flags['proxy-client-key-file'])) throw new UsageError('--proxy-client-cert-file and --proxy-client-key-file go together');
  const proxyClient = flags['proxy-client-cert-file'] ? { certPem: await read('proxy-client-cert-file'), keyPem: await read('proxy-client-key-file') } : pki.frontProxyClient;
  return {
    requestHeader: {
      clientCaPem,
      allowedNames: list(flags['requestheader-allowed-names']),
      usernameHeaders: list(flags['requestheader-username-headers']),
      groupHeaders: list(flags['requestheader-group-headers']),
      extraHeaderPrefixes: list(flags['requestheader-extra-headers-prefix']),
      uidHeaders: list(flags['requestheader-uid-headers']),
    },
    proxyClient,
  };
}
