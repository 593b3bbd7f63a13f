/**
 * The request never got an HTTP answer (connection refused or reset, DNS,
 * TLS, timeout, or a watch stream cut mid-way). Distinct from ApiError,
 * which is an answer the server gave.
 */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
