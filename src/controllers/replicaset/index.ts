import type { ControllerDescriptor } from '../controller-descriptor.js';
import { replicatedController } from './replicated-controller.js';
import { REPLICA_SET_KIND } from './replicated-kind.js';

export const controller: ControllerDescriptor = replicatedController(REPLICA_SET_KIND);
