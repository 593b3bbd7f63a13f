/**
 * Why a patch failed. Upstream turns a malformed patch document into 400
 * BadRequest, and a well-formed patch that does not apply to the object into
 * 422 (reason Invalid, message "the server rejected our request due to an
 * error in our request", with this message as the single cause).
 */
export type PatchErrorKind = 'InvalidPatch' | 'PatchFailed';

export class PatchError extends Error {
  override readonly name = 'PatchError';
  constructor(
    readonly kind: PatchErrorKind,
    message: string,
  ) {
    super(message);
  }
}
