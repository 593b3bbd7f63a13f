import { readFile } from 'node:fs/promises';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, NAMESPACES } from '../../api/resource-refs.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { ROOT_CA_CONFIG_MAP, RootCaReconciler } from './root-ca-reconciler.js';

/** Publishes the cluster CA (`--root-ca-file`; inside skiff server the cluster CA) into every namespace. */
export const controller: ControllerDescriptor = {
  name: 'root-ca-cert-publisher',
  async start(ctx) {
    const file = ctx.config?.rootCaFile || ctx.config?.clusterSigningCertFile;
    if (!file) {
      ctx.logger.info('no --root-ca-file: not publishing kube-root-ca.crt');
      return;
    }
    let ca: Promise<string> | undefined;
    const namespaces = ctx.informers.forResource<Namespace>(NAMESPACES);
    const configMaps = ctx.informers.forResource<ConfigMap>(CONFIG_MAPS);
    const reconciler = new RootCaReconciler({ client: ctx.client, caPem: () => (ca ??= readFile(file, 'utf8')), namespaces: namespaces.lister, configMaps: configMaps.lister });
    const c = newController(ctx, { workers: 1, reconciler })
      .watches(namespaces, { enqueue: 'self' })
      .watches(configMaps, { enqueue: (cm) => (cm.metadata?.name === ROOT_CA_CONFIG_MAP ? [cm.metadata?.namespace ?? ''] : []) });
    await c.run(ctx.signal);
  },
};
