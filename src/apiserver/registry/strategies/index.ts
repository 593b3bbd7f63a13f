import type { ResourceInfo } from '../../../api/resource-info.js';
import type { Storage } from '../../../storage/storage.js';
import { certificateSigningRequestStrategy } from './certificates.js';
import { crdStrategy } from '../../apiextensions/crd-strategy.js';
import { validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy } from '../../admission/policy/policy-strategy.js';
import { defaultStrategy } from '../default-strategy.js';
import type { Strategy } from '../strategy.js';
import {
  endpointsStrategy,
  eventStrategy,
  jobStrategy,
  nodeStrategy,
  persistentVolumeClaimStrategy,
  persistentVolumeStrategy,
  replicationControllerStrategy,
  secretStrategy,
} from './misc.js';
import { namespaceStrategy } from './namespaces.js';
import { podStrategy } from './pods.js';
import { serviceStrategy, type ServiceNetworkOptions } from './services.js';

export interface StrategyDeps {
  storage: Storage;
  network: ServiceNetworkOptions;
}

/** The strategy of each served resource; anything not listed uses the default. */
export function strategyFor(info: ResourceInfo, deps: StrategyDeps): Strategy {
  const id = info.group ? `${info.resource}.${info.group}` : info.resource;
  switch (id) {
    case 'pods':
      return podStrategy(info);
    case 'namespaces':
      return namespaceStrategy(info);
    case 'services':
      return serviceStrategy(info, deps.storage, deps.network);
    case 'nodes':
      return nodeStrategy(info);
    case 'events':
      return eventStrategy(info);
    case 'secrets':
      return secretStrategy(info);
    case 'endpoints':
      return endpointsStrategy(info);
    case 'persistentvolumes':
      return persistentVolumeStrategy(info);
    case 'persistentvolumeclaims':
      return persistentVolumeClaimStrategy(info);
    case 'replicationcontrollers':
      return replicationControllerStrategy(info);
    case 'jobs.batch':
      return jobStrategy(info);
    case 'certificatesigningrequests.certificates.k8s.io':
      return certificateSigningRequestStrategy(info);
    case 'customresourcedefinitions.apiextensions.k8s.io':
      return crdStrategy(info);
    case 'validatingadmissionpolicies.admissionregistration.k8s.io':
      return validatingAdmissionPolicyStrategy(info);
    case 'validatingadmissionpolicybindings.admissionregistration.k8s.io':
      return validatingAdmissionPolicyBindingStrategy(info);
    case 'events.events.k8s.io':
      return defaultStrategy(info, { allowCreateOnUpdate: true });
    default:
      // RBAC objects may be created by PUT (policy reconcilers rely on it), as upstream
      if (info.group === 'rbac.authorization.k8s.io') return defaultStrategy(info, { allowCreateOnUpdate: true });
      return defaultStrategy(info);
  }
}
