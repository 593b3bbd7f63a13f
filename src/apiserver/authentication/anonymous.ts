import type { Authenticated, Authenticator } from './authenticator.js';
import { ANONYMOUS_USER, SYSTEM_UNAUTHENTICATED } from './user-info.js';

/**
 * Requests without credentials become `system:anonymous`, but only on the
 * given paths (upstream's anonymous authenticator with path conditions). It
 * goes last in the chain.
 */
export class AnonymousAuthenticator implements Authenticator {
  readonly name = 'anonymous';
  private readonly paths: ReadonlySet<string>;

  constructor(paths: Iterable<string>) {
    this.paths = new Set(paths);
  }

  async authenticate(_req: unknown, path: string): Promise<Authenticated | undefined> {
    if (!this.paths.has(path)) return undefined;
    return { user: { name: ANONYMOUS_USER, groups: [SYSTEM_UNAUTHENTICATED] } };
  }
}
