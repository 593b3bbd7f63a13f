import type { Secret } from 'kubernetes-types/core/v1.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE } from '../../api/bootstrap-token.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { TokenCleanerReconciler } from './token-cleaner-reconciler.js';
import { SECRETS } from '../../api/resource-refs.js';

/** On by default in skiff (upstream turns it on through kubeadm), since `skiff token create` makes expiring tokens. */
export const controller: ControllerDescriptor = {
  name: 'tokencleaner',
  async start(ctx) {
    const secrets = ctx.informers.forResource<Secret>(SECRETS);
    const reconciler = new TokenCleanerReconciler({ client: ctx.client, clock: ctx.clock, secrets: secrets.lister });
    const c = newController(ctx, {
      queue: 'token_cleaner',
      workers: 1,
      reconciler,
    }).watches(secrets, {
      enqueue: (s) => (s.type === BOOTSTRAP_TOKEN_SECRET_TYPE && s.metadata?.namespace === BOOTSTRAP_TOKEN_NAMESPACE ? [`${BOOTSTRAP_TOKEN_NAMESPACE}/${s.metadata?.name ?? ''}`] : []),
    });
    await c.run(ctx.signal);
  },
};
