// The polyfill must run before @peculiar/x509 loads; import x509 only through this module.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { cryptoProvider } from '@peculiar/x509';

// @peculiar/x509 signs and parses through WebCrypto; Node's implementation is enough.
cryptoProvider.set(webcrypto);

export * from '@peculiar/x509';
