import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../machinery/api-error.js';
import { Auditor } from './audit/auditor.js';
import type { Admission } from './admission/admission.js';
import { AdmissionChain } from './admission/admission-chain.js';
import { ADMISSION_PLUGINS, type AdmissionPluginFactory } from './admission/plugins.js';
import type { ApiRegistry } from './api-registry.js';
import type { WebhookConfigurations } from './admission/webhook/webhook-configurations.js';
import type { ObjectConverter } from './admission/webhook/webhook-dispatcher.js';
import type { Logger } from '../machinery/logger.js';
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
  /** The admission webhook configurations, watched by the API server. */
  webhooks?: WebhookConfigurations;
  logger?: Logger;
  /** Converts a custom resource between its CRD's versions (for webhooks matched through another version). */
  convert?: ObjectConverter;
}

/** How the API server's request pipeline is made; each list is in the order it runs. */
export interface RequestPipelineOptions {
  authenticators?: (deps: PipelineDeps) => Authenticator[];
  authorizers?: (deps: PipelineDeps) => Authorizer[];
  admission?: readonly AdmissionPluginFactory[];
  /** The audit stage (default: records nothing, as upstream without --audit-policy-file). */
  audit?: Auditor;
}

/** Today's authenticators: client certificates, then anonymous on the public paths only. */
export const DEFAULT_AUTHENTICATORS = (): Authenticator[] => [new X509Authenticator(), new AnonymousAuthenticator(PUBLIC_INFO_PATHS)];

/** Today's authorizers: the public paths for anyone, everything for authenticated users (RBAC replaces the latter). */
export const DEFAULT_AUTHORIZERS = (): Authorizer[] => [new PublicInfoAuthorizer(), new AlwaysAllowAuthenticated()];

/**
 * The request pipeline's stages, in order: authentication → audit →
 * impersonation → authorization here, before any handler; then admission (mutating →
 * defaulting and validation → validating) inside every write, run by the
 * store at the right points.
 */
export class RequestPipeline {
  readonly authenticator: AuthenticatorChain;
  readonly authorizer: AuthorizerChain;
  readonly admission: Admission;
  readonly audit: Auditor;

  constructor(deps: PipelineDeps, opts: RequestPipelineOptions = {}) {
    this.authenticator = new AuthenticatorChain((opts.authenticators ?? DEFAULT_AUTHENTICATORS)(deps));
    this.authorizer = new AuthorizerChain((opts.authorizers ?? DEFAULT_AUTHORIZERS)(deps));
    this.admission = new AdmissionChain((opts.admission ?? ADMISSION_PLUGINS).map((factory) => factory({ registry: deps.registry, webhooks: deps.webhooks, logger: deps.logger, convert: deps.convert })));
    this.audit = opts.audit ?? new Auditor();
  }

  /**
   * Who sent the request, after impersonation; 401 when nobody can tell, 403
   * when impersonation is not allowed. Given the request's info, the audit
   * stage runs between authentication and impersonation, as upstream's chain.
   */
  async authenticate(req: IncomingMessage, path: string, audited?: { info: RequestInfo; res?: ServerResponse }): Promise<UserInfo> {
    let requester: UserInfo;
    try {
      requester = (await this.authenticator.authenticate(req, path)).user;
    } catch (err) {
      if (audited && ApiError.is(err, 'Unauthorized')) this.audit.failedAuthentication(req, audited.info, 401);
      throw err;
    }
    if (audited) this.audit.begin(req, audited.res, audited.info, requester);
    const user = await impersonate(req, requester, this.authorizer);
    if (user !== requester) this.audit.impersonated(req, user);
    withUser(req, user);
    return user;
  }

  /** 403 with upstream's wording unless some authorizer allows the request; the decision is noted in the request's audit event. */
  async authorize(info: RequestInfo, user: UserInfo, req?: IncomingMessage): Promise<void> {
    const attrs = attributesOf(info, user);
    const { decision, reason } = await this.authorizer.authorize(attrs);
    if (req) this.audit.authorized(req, decision === 'Allow', reason);
    if (decision !== 'Allow') throw forbiddenError(attrs, reason);
  }
}
