/** gRPC status codes this client acts on (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GrpcCode = {
  OK: 0,
  Cancelled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  FailedPrecondition: 9,
  OutOfRange: 11,
  Unavailable: 14,
} as const;

/** A call that ended with a non-OK gRPC status (or could not reach a server: Unavailable). */
export class GrpcError extends Error {
  override readonly name = 'GrpcError';
  constructor(
    readonly code: number,
    readonly details: string,
    /** True when the request certainly never reached a server, so even a write may be retried. */
    readonly notSent = false,
  ) {
    super(`gRPC status ${code}: ${details}`);
  }
}
