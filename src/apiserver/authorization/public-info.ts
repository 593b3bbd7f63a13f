import { NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer } from './authorizer.js';

/** Paths anyone may read, as upstream's system:public-info-viewer cluster role grants. */
export const PUBLIC_INFO_PATHS: readonly string[] = ['/healthz', '/livez', '/readyz', '/version', '/healthz/ping', '/livez/ping', '/readyz/ping'];

/** Lets anyone (anonymous included) `get` the public health and version paths. */
export class PublicInfoAuthorizer implements Authorizer {
  readonly name = 'PublicInfo';
  private readonly paths = new Set(PUBLIC_INFO_PATHS);

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    if (!attrs.resourceRequest && attrs.verb === 'get' && this.paths.has(attrs.path)) return { decision: 'Allow', reason: '' };
    return NO_OPINION;
  }
}
