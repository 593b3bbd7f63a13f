/**
 * Everything needed to talk to one API server as one user: what a kubeconfig
 * context or the in-cluster service account resolves to.
 */
export interface RestConfig {
  /** Base URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** PEM CA bundle that signs the server certificate; system roots if absent. */
  ca?: string | Buffer;
  insecureSkipTLSVerify?: boolean;
  /** Overrides the name checked against the server certificate. */
  tlsServerName?: string;
  /** PEM client certificate and key for x509 authentication. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /**
   * Asked for the client certificate and key before every request, instead of
   * cert/key (a certificate that rotates, e.g. the kubelet's). When it answers
   * a different pair, pooled connections are closed so the next handshakes
   * present the new certificate (upstream's kubelet closes all connections).
   */
  certificateSource?: () => ClientCertificate;
  /** Bearer token. */
  token?: string;
  /** A file holding the bearer token; re-read periodically because projected tokens rotate. */
  tokenFile?: string;
  /** Asked for the bearer token on every request (a token the caller refreshes, e.g. a TokenRequest's). */
  tokenSource?: () => string;
  username?: string;
  password?: string;
  /** Default namespace of the context (`default` if unset). */
  namespace?: string;
  /** Client-side rate limit (client-go defaults: 5 qps, burst 10); a negative qps disables it. */
  qps?: number;
  burst?: number;
  /** Per-request timeout in ms for non-watch requests; none if 0 or unset. */
  timeoutMs?: number;
}

/** A PEM client certificate (chain) and its private key. */
export interface ClientCertificate {
  cert: string | Buffer;
  key: string | Buffer;
}
