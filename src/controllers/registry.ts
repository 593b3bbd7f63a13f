import type { ControllerDescriptor } from './controller-descriptor.js';
import { controller as clusterroleAggregation } from './clusterrole-aggregation/index.js';
import { controller as cronjob } from './cronjob/index.js';
import { controller as csrapproving } from './csrapproving/index.js';
import { controller as csrsigning } from './csrsigning/index.js';
import { controller as daemonset } from './daemonset/index.js';
import { controller as deployment } from './deployment/index.js';
import { controller as disruption } from './disruption/index.js';
import { controller as endpoints } from './endpoints/index.js';
import { controller as endpointslice } from './endpointslice/index.js';
import { controller as garbagecollector } from './garbagecollector/index.js';
import { controller as horizontalpodautoscaling } from './horizontalpodautoscaler/index.js';
import { controller as job } from './job/index.js';
import { controller as localPathProvisioner } from './localpath/index.js';
import { controller as namespace } from './namespace/index.js';
import { controller as nodeipam } from './nodeipam/index.js';
import { controller as nodelifecycle } from './nodelifecycle/index.js';
import { controller as persistentvolumeBinder } from './persistentvolume/index.js';
import { controller as podgc } from './podgc/index.js';
import { controller as pvcProtection } from './pvcprotection/index.js';
import { controller as pvProtection } from './pvprotection/index.js';
import { controller as replicaset } from './replicaset/index.js';
import { controller as resourcequota } from './resourcequota/index.js';
import { controller as rootCaCertPublisher } from './rootcacertpublisher/index.js';
import { controller as replicationcontroller } from './replicationcontroller/index.js';
import { controller as serviceaccount } from './serviceaccount/index.js';
import { controller as serviceaccountToken } from './serviceaccount-token/index.js';
import { controller as servicelb } from './servicelb/index.js';
import { controller as statefulset } from './statefulset/index.js';
import { controller as tainteviction } from './tainteviction/index.js';
import { controller as tokencleaner } from './tokencleaner/index.js';
import { controller as ttlafterfinished } from './ttlafterfinished/index.js';

/**
 * Every controller `skiff controller-manager` can run (which ones it does run
 * is `--controllers`: `*`, `foo`, `-foo`). One folder per controller, its
 * `index.ts` exporting `controller`; add it here to ship it.
 */
export const CONTROLLERS: readonly ControllerDescriptor[] = [clusterroleAggregation, cronjob, csrapproving, csrsigning, daemonset, deployment, disruption, endpoints, endpointslice, garbagecollector, horizontalpodautoscaling, job, localPathProvisioner, namespace, nodeipam, nodelifecycle, persistentvolumeBinder, podgc, pvcProtection, pvProtection, replicaset, resourcequota, rootCaCertPublisher, replicationcontroller, serviceaccount, serviceaccountToken, servicelb, statefulset, tainteviction, tokencleaner, ttlafterfinished];
