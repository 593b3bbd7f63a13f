/**
 * A protobuf request body that skiff cannot turn into an object: bad magic,
 * truncated or malformed wire data, or a kind without a known schema. The API
 * server maps it to 400 (malformed) or 415 (unsupported kind).
 */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
  /** `unsupported` when the body is well formed but its kind or encoding has no schema here. */
  readonly reason: 'malformed' | 'unsupported';

  constructor(message: string, reason: 'malformed' | 'unsupported' = 'malformed') {
    super(message);
    this.reason = reason;
  }
}
