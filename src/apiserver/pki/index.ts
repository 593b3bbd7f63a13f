export { ensurePki, defaultServingHosts, issueClientCertificate, issueServingCertificate, type EnsurePkiOptions, type ClientCertificateRequest } from './ensure-pki.js';
export { writeKubeconfig, renderKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
export { ADMIN_GROUP, ADMIN_USER, PKI_FILES, type CertificateKeyPair, type Pki } from './pki.js';
