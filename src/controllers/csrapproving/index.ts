import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { CsrApprovingReconciler } from './csr-approving-reconciler.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'csrapproving',
  async start(ctx) {
    const csrs = ctx.informers.forResource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS);
    const reconciler = new CsrApprovingReconciler({ client: ctx.client, csrs: csrs.lister });
    const c = newController(ctx, {
      workers: 1,
      reconciler,
    }).watches(csrs, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
