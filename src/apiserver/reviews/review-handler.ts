import type { KubeObject } from '../../api/object.js';
import type { UserInfo } from '../authentication/user-info.js';

/** Who asks, and in which namespace (for namespaced reviews). */
export interface ReviewContext {
  user: UserInfo;
  namespace: string;
  /** The object named in the URL (the service account of a TokenRequest). */
  name: string;
}

/**
 * A create-only resource answered from the request and never stored (the
 * access, rules and token reviews): the request object in, the object with
 * its status filled in out.
 */
export type ReviewHandler = (obj: KubeObject, ctx: ReviewContext) => Promise<KubeObject>;

/** Review handlers by `group/resource` (or `group/resource/subresource`). */
export type ReviewHandlers = ReadonlyMap<string, ReviewHandler>;
