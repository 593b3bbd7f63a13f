import type { KubeObject } from '../../api/object.js';
import type { ReviewHandler } from './review-handler.js';

/** authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`): who the server thinks you are. */
export const selfSubjectReview: ReviewHandler = async (obj: KubeObject, ctx) => {
  const userInfo: Record<string, unknown> = { username: ctx.user.name };
  if (ctx.user.uid) userInfo.uid = ctx.user.uid;
  if (ctx.user.groups.length) userInfo.groups = [...ctx.user.groups];
  if (ctx.user.extra && Object.keys(ctx.user.extra).length) userInfo.extra = ctx.user.extra;
  return { ...obj, metadata: { ...(obj.metadata ?? {}), creationTimestamp: undefined }, status: { userInfo } };
};
