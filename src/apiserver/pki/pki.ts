/** A certificate and its private key, both PEM encoded. */
export interface CertificateKeyPair {
  certPem: string;
  keyPem: string;
}

/**
 * The cluster's certificates: the CA every component trusts, the API
 * server's serving certificate, and the admin client certificate.
 */
export interface Pki {
  /** `<dataDir>/pki` */
  dir: string;
  ca: CertificateKeyPair;
  serving: CertificateKeyPair;
  admin: CertificateKeyPair;
}

export const PKI_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
} as const;

export const ADMIN_USER = 'skiff-admin';
export const ADMIN_GROUP = 'system:masters';
