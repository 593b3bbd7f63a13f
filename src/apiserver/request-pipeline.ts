import type { IncomingMessage } from 'node:http';
import type { Admission } from './admission/admission.js';
import { AdmissionChain } from './admission/admission-chain.js';
import { ADMISSION_PLUGINS, type AdmissionPluginFactory } from './admission/plugins.js';
import type { ApiRegistry } from './api-registry.js';
import { AnonymousAuthenticator } from './authentication/anonymous.js';
import { AuthenticatorChain, type Authenticator } from './authentication/authenticator.js';
import { withUser } from './authentication/request-user.js';
import type { UserInfo } from './authentication/user-info.js';
import { X509Authenticator } from './authentication/x509.js';
import { AlwaysAllowAuthenticated } from './authorization/always-allow.js';
import { AuthorizerChain } from './authorization/authorizer-chain.js';
import { attributesOf, type Authorizer } from './authorization/authorizer.js';
import { forbiddenError } from './authorization/forbidden.js';
import { PUBLIC_INFO_PATHS, PublicInfoAuthorizer } from './authorization/public-info.js';
import { impersonate } from './impersonation/impersonation.js';
import type { RequestInfo } from './request-info.js';

/** What the pipeline's stages may read: the registry's stores (never storage directly). */
export interface PipelineDeps {
  registry: ApiRegistry;
}

/** How the API server's request pipeline is made; each list is in the order it runs. */
export interface RequestPipelineOptions {
  authenticators?: (deps: PipelineDeps) => Authenticator[];
  authorizers?: (deps: PipelineDeps) => Authorizer[];
  admission?: readonly AdmissionPluginFactory[];
}

/** Today's authenticators: client certificates, then anonymous on the public paths only. */
export const DEFAULT_AUTHENTICATORS = (): Authenticator[] => [new X509Authenticator(), new AnonymousAuthenticator(PUBLIC_INFO_PATHS)];

/** Today's authorizers: the public paths for anyone, everything for authenticated users (RBAC replaces the latter). */
export const DEFAULT_AUTHORIZERS = (): Authorizer[] => [new PublicInfoAuthorizer(), new AlwaysAllowAuthenticated()];

/**
 * The request pipeline's stages, in order: authentication → impersonation →
 * authorization here, before any handler; then admission (mutating →
 * defaulting and validation → validating) inside every write, run by the
 * store at the right points.
 */
export class RequestPipeline {
  readonly authenticator: AuthenticatorChain;
  readonly authorizer: AuthorizerChain;
  readonly admission: Admission;

  constructor(deps: PipelineDeps, opts: RequestPipelineOptions = {}) {
    this.authenticator = new AuthenticatorChain((opts.authenticators ?? DEFAULT_AUTHENTICATORS)(deps));
    this.authorizer = new AuthorizerChain((opts.authorizers ?? DEFAULT_AUTHORIZERS)(deps));
    this.admission = new AdmissionChain((opts.admission ?? ADMISSION_PLUGINS).map((factory) => factory({ registry: deps.registry })));
  }

  /** Who sent the request, after impersonation; 401 when nobody can tell, 403 when impersonation is not allowed. */
  async authenticate(req: IncomingMessage, path: string): Promise<UserInfo> {
    const { user: requester } = await this.authenticator.authenticate(req, path);
    const user = await impersonate(req, requester, this.authorizer);
    withUser(req, user);
    return user;
  }

  /** 403 with upstream's wording unless some authorizer allows the request. */
  async authorize(info: RequestInfo, user: UserInfo): Promise<void> {
    const attrs = attributesOf(info, user);
    const { decision, reason } = await this.authorizer.authorize(attrs);
    if (decision !== 'Allow') throw forbiddenError(attrs, reason);
  }
}
