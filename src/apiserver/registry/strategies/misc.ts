import type { Event, Node, PersistentVolume, PersistentVolumeClaim, ReplicationController, Secret } from 'kubernetes-types/core/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { asKind, type KubeObject } from '../../../api/object.js';
import type { ResourceInfo } from '../../../api/resource-info.js';
import { generateJobSelector } from '../../../api/defaults/index.js';
import { defaultStrategy, metadataFields } from '../default-strategy.js';
import type { Strategy } from '../strategy.js';

/** Nodes register with their status (the kubelet writes both at once). */
export function nodeStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate() {},
    selectableFields: (obj) => ({ ...metadataFields(obj, info), 'spec.unschedulable': String(asKind<Node>(obj).spec?.unschedulable ?? false) }),
  });
}

/** Core events: written by every component, often with PUT-to-create. */
export function eventStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    allowCreateOnUpdate: true,
    selectableFields(obj: KubeObject) {
      const ev = asKind<Event>(obj);
      const io = ev.involvedObject ?? {};
      return {
        ...metadataFields(obj, info),
        'involvedObject.kind': io.kind ?? '',
        'involvedObject.namespace': io.namespace ?? '',
        'involvedObject.name': io.name ?? '',
        'involvedObject.uid': io.uid ?? '',
        'involvedObject.apiVersion': io.apiVersion ?? '',
        'involvedObject.resourceVersion': io.resourceVersion ?? '',
        'involvedObject.fieldPath': io.fieldPath ?? '',
        reason: ev.reason ?? '',
        reportingComponent: ev.reportingComponent ?? '',
        source: ev.source?.component ?? '',
        type: ev.type ?? '',
      };
    },
  });
}

export function secretStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    selectableFields: (obj) => ({ ...metadataFields(obj, info), type: asKind<Secret>(obj).type ?? '' }),
  });
}

/** Jobs get their controller-uid selector and labels once the uid exists. */
export function jobStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate(obj) {
      delete obj.status;
      generateJobSelector(asKind<Job>(obj));
    },
    selectableFields: (obj) => ({ ...metadataFields(obj, info), 'status.successful': String(asKind<Job>(obj).status?.succeeded ?? 0) }),
  });
}

/** core/v1 ReplicationController: generation tracked as for apps/v1 workloads; `status.replicas` selectable. */
export function replicationControllerStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    tracksGeneration: true,
    selectableFields: (obj) => ({ ...metadataFields(obj, info), 'status.replicas': String(asKind<ReplicationController>(obj).status?.replicas ?? 0) }),
  });
}

export function endpointsStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, { allowCreateOnUpdate: true });
}

export function persistentVolumeStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate(obj) {
      asKind<PersistentVolume>(obj).status = { phase: 'Pending' };
    },
  });
}

export function persistentVolumeClaimStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate(obj) {
      asKind<PersistentVolumeClaim>(obj).status = { phase: 'Pending' };
    },
  });
}
