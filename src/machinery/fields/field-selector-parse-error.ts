/** A field selector that cannot be parsed; worded as upstream for a 400 BadRequest. */
export class FieldSelectorParseError extends Error {
  override readonly name = 'FieldSelectorParseError';
  constructor(message: string) {
    super(message);
  }
}
