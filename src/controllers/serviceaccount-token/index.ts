import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { SECRETS, SERVICE_ACCOUNTS } from '../../api/resource-refs.js';
import { SERVICE_ACCOUNT_TOKEN_SECRET_TYPE } from '../../machinery/legacy-service-account-token.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { tokenSecretsOf, TokenReconciler } from './token-reconciler.js';

/**
 * The legacy token controller (upstream's "serviceaccount-token"), run with
 * the controller manager's own credentials as upstream does; needs
 * `--service-account-private-key-file` (inside skiff server the API server's
 * `pki/sa.key`).
 */
export const controller: ControllerDescriptor = {
  name: 'serviceaccount-token',
  async start(ctx) {
    const keyFile = ctx.config?.serviceAccountPrivateKeyFile;
    if (!keyFile) {
      ctx.logger.info('no --service-account-private-key-file: not filling service account token secrets');
      return;
    }
    const privateKey = createPrivateKey(await readFile(keyFile, 'utf8'));
    const caFile = ctx.config?.rootCaFile || ctx.config?.clusterSigningCertFile;
    let ca: Promise<string> | undefined;
    const secrets = ctx.informers.forResource<Secret>(SECRETS);
    const serviceAccounts = ctx.informers.forResource<ServiceAccount>(SERVICE_ACCOUNTS);
    const reconciler = new TokenReconciler({
      client: ctx.client,
      secrets: secrets.lister,
      serviceAccounts: serviceAccounts.lister,
      privateKey,
      rootCa: caFile ? () => (ca ??= readFile(caFile, 'utf8')) : undefined,
      logger: ctx.logger,
    });
    const c = newController(ctx, { queue: 'serviceaccount_tokens_secret', workers: 1, reconciler })
      .watches(secrets, { enqueue: (s) => (s.type === SERVICE_ACCOUNT_TOKEN_SECRET_TYPE ? [`${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`] : []) })
      // a deleted (or recreated) account takes its token secrets with it
      .watches(serviceAccounts, { enqueue: (sa) => tokenSecretsOf(secrets.lister, sa) });
    await c.run(ctx.signal);
  },
};
