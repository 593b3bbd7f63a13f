import type { Registry } from '../framework/interface.js';
import { factory as defaultBinder } from './default-binder/default-binder.js';
import { factory as defaultPreemption } from './default-preemption/default-preemption.js';
import { factory as imageLocality } from './image-locality/image-locality.js';
import { factory as interPodAffinity } from './inter-pod-affinity/inter-pod-affinity.js';
import { factory as nodeAffinity } from './node-affinity/node-affinity.js';
import { factory as nodeName } from './node-name/node-name.js';
import { factory as nodePorts } from './node-ports/node-ports.js';
import { factory as balancedAllocation } from './node-resources-balanced-allocation/node-resources-balanced-allocation.js';
import { factory as nodeResourcesFit } from './node-resources-fit/node-resources-fit.js';
import { factory as nodeUnschedulable } from './node-unschedulable/node-unschedulable.js';
import { factory as podTopologySpread } from './pod-topology-spread/pod-topology-spread.js';
import { factory as taintToleration } from './taint-toleration/taint-toleration.js';
import { factory as volumeBinding } from './volume-binding/volume-binding.js';

/** Every in-tree plugin, by the name profiles use. */
export const inTreeRegistry: Registry = {
  NodeUnschedulable: nodeUnschedulable,
  NodeName: nodeName,
  TaintToleration: taintToleration,
  NodeAffinity: nodeAffinity,
  NodePorts: nodePorts,
  NodeResourcesFit: nodeResourcesFit,
  VolumeBinding: volumeBinding,
  PodTopologySpread: podTopologySpread,
  InterPodAffinity: interPodAffinity,
  DefaultPreemption: defaultPreemption,
  NodeResourcesBalancedAllocation: balancedAllocation,
  ImageLocality: imageLocality,
  DefaultBinder: defaultBinder,
};
