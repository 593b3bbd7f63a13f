import type { Attributes, AuthorizationResult, Authorizer } from './authorizer.js';

/**
 * Asks each authorizer in order; the first Allow or Deny decides, as
 * upstream's union authorizer. When nobody has an opinion the answer is
 * NoOpinion, which the server treats as forbidden.
 */
export class AuthorizerChain implements Authorizer {
  readonly name = 'union';

  constructor(private readonly authorizers: readonly Authorizer[]) {}

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    const reasons: string[] = [];
    for (const authorizer of this.authorizers) {
      const result = await authorizer.authorize(attrs);
      if (result.decision !== 'NoOpinion') return result;
      if (result.reason) reasons.push(result.reason);
    }
    return { decision: 'NoOpinion', reason: reasons.join(', ') };
  }
}
