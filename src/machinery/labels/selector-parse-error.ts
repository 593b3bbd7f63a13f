/**
 * A label selector (string or metav1.LabelSelector) that cannot be parsed or
 * validated. The message is worded as upstream's, so the API server can put it
 * verbatim into a 400 BadRequest.
 */
export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
  constructor(message: string) {
    super(message);
  }
}
