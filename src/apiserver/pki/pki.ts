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
  /** The front proxy's own CA (kubeadm's front-proxy-ca): extension API servers trust request headers only from certificates it signed. */
  frontProxyCa: CertificateKeyPair;
  /** The certificate the aggregator presents to extension API servers (kubeadm's front-proxy-client). */
  frontProxyClient: CertificateKeyPair;
}

export const PKI_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
  frontProxyCaCert: 'front-proxy-ca.crt',
  frontProxyCaKey: 'front-proxy-ca.key',
  frontProxyClientCert: 'front-proxy-client.crt',
  frontProxyClientKey: 'front-proxy-client.key',
} as const;

/** The front-proxy client certificate's common name, the one name `--requestheader-allowed-names` allows by default (as kubeadm). */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

export const ADMIN_USER = 'skiff-admin';
export const ADMIN_GROUP = 'system:masters';
