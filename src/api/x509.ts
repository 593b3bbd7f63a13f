import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';

export type * from '@peculiar/x509';
type X509Module = typeof import('@peculiar/x509');

let loaded: X509Module | undefined;

/**
 * @peculiar/x509, loaded on first use. With reflect-metadata (whose polyfill
 * must run first) and its ASN.1 schemas it costs ~200 ms of CPU to load, which
 * a process that never handles a certificate (a test API server on cached
 * certificates, a client) should not pay. Its CommonJS build loads
 * synchronously, so callers stay synchronous. Import x509 only through here.
 */
export function x509(): X509Module {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    require('reflect-metadata');
    const lib = require('@peculiar/x509') as X509Module;
    // @peculiar/x509 signs and parses through WebCrypto; Node's implementation is enough.
    lib.cryptoProvider.set(webcrypto);
    loaded = lib;
  }
  return loaded;
}
