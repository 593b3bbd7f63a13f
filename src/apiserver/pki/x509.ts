// One place sets up @peculiar/x509 (api/x509.ts); the API server's PKI reads it through here.
export * from '../../api/x509.js';
