import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import { isAlreadyExists } from '../../client/rest/error-predicates.js';
import { DEFAULT_CLASS_ANNOTATION } from '../../api/storage-class.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { HELPER_NAMESPACE, HELPER_VOLUME_LABEL } from './helper-pod.js';
import { CLAIM_KEY, LOCAL_PATH_PROVISIONER, LocalPathProvisioner, VOLUME_KEY } from './local-path-provisioner.js';
import { NODES, PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, PODS, STORAGE_CLASSES } from '../../api/resource-refs.js';

/** k3s's default class: late binding, so the volume is made where the pod lands. */
export const LOCAL_PATH_CLASS: StorageClass = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'local-path', annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
  provisioner: LOCAL_PATH_PROVISIONER,
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
  allowVolumeExpansion: true,
};

export const controller: ControllerDescriptor = {
  name: 'local-path-provisioner',
  async start(ctx) {
    const config = controllerConfig(ctx);
    // created once, like k3s's manifest; an administrator's later edits or deletion stand until the next start
    await ctx.client
      .resource<StorageClass>(STORAGE_CLASSES)
      .create(LOCAL_PATH_CLASS)
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) ctx.logger.info('could not create the local-path StorageClass', { error: (err as Error).message });
      });
    const claims = ctx.informers.forResource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS);
    const volumes = ctx.informers.forResource<PersistentVolume>(PERSISTENT_VOLUMES);
    const classes = ctx.informers.forResource<StorageClass>(STORAGE_CLASSES);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const nodes = ctx.informers.forResource<Node>(NODES);
    const provisioner = new LocalPathProvisioner({
      client: ctx.client,
      claims: claims.lister,
      volumes: volumes.lister,
      classes: classes.lister,
      pods: pods.lister,
      nodes: nodes.lister,
      recorder: ctx.eventRecorder(LOCAL_PATH_PROVISIONER),
      dir: config.localPathDir,
      helperImage: config.localPathHelperImage,
    });
    const c = newController(ctx, { reconciler: provisioner, workers: 2 })
      .watches(claims, { enqueue: (pvc) => [`${CLAIM_KEY}${metaNamespaceKey(pvc)}`] })
      .watches(volumes, {
        enqueue: (pv) => {
          const ref = pv.spec?.claimRef;
          return [`${VOLUME_KEY}${pv.metadata?.name}`, ...(ref?.name ? [`${CLAIM_KEY}${ref.namespace}/${ref.name}`] : [])];
        },
      })
      .watches(pods, {
        enqueue: (pod) => {
          const pv = pod.metadata?.namespace === HELPER_NAMESPACE ? pod.metadata.labels?.[HELPER_VOLUME_LABEL] : undefined;
          return pv ? [`${VOLUME_KEY}${pv}`] : [];
        },
      });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
