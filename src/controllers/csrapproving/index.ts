import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { Controller } from '../../client/controller/controller.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { CSRS } from '../certificates/csr.js';
import { CsrApprovingReconciler } from './csr-approving-reconciler.js';

export const controller: ControllerDescriptor = {
  name: 'csrapproving',
  async start(ctx) {
    const csrs = ctx.informers.forResource<CertificateSigningRequest>(CSRS);
    const reconciler = new CsrApprovingReconciler({ client: ctx.client, csrs: csrs.lister });
    const c = new Controller({
      name: 'csrapproving',
      workers: 1,
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('csrapproving', reconciler, ctx.metrics),
      onError: (key, err) => ctx.logger.warn('approving a CSR failed', { csr: key, error: err instanceof Error ? err.message : String(err) }),
    }).watches(csrs, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
