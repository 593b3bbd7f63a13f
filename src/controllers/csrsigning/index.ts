import { readFile } from 'node:fs/promises';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { CsrSigningReconciler } from './csr-signing-reconciler.js';
import { loadSigningCa, type SigningCa } from './sign-certificate.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'csrsigning',
  async start(ctx) {
    const config = controllerConfig(ctx);
    if (!config.clusterSigningCertFile || !config.clusterSigningKeyFile) {
      ctx.logger.info('not signing certificates: --cluster-signing-cert-file and --cluster-signing-key-file are not set');
      return;
    }
    // read on first use and kept: a bad CA file shows up as the sync errors of the first approved CSR
    let ca: Promise<SigningCa> | undefined;
    const loadCa = () =>
      (ca ??= Promise.all([readFile(config.clusterSigningCertFile, 'utf8'), readFile(config.clusterSigningKeyFile, 'utf8')]).then(([c, k]) => loadSigningCa(c, k)).catch((err: unknown) => {
        ca = undefined;
        throw err;
      }));
    const csrs = ctx.informers.forResource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS);
    const reconciler = new CsrSigningReconciler({ client: ctx.client, clock: ctx.clock, csrs: csrs.lister, ca: loadCa, maxDurationMs: config.clusterSigningDurationMs });
    const c = newController(ctx, {
      workers: 1,
      reconciler,
    }).watches(csrs, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
