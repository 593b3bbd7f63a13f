import { messages } from '../message-schema.js';

/**
 * k8s.io/apimachinery meta/v1 messages. `Time`, `MicroTime`, `Duration`,
 * `Quantity`, `IntOrString` and `FieldsV1` are decoded by hand (see
 * special-types.ts) because their JSON form is not a plain object.
 */
export const META_V1 = messages({
  ObjectMeta: {
    1: 'name',
    2: 'generateName',
    3: 'namespace',
    4: 'selfLink',
    5: 'uid',
    6: 'resourceVersion',
    7: 'generation:i64',
    8: 'creationTimestamp:Time',
    9: 'deletionTimestamp:Time*',
    10: 'deletionGracePeriodSeconds:i64*',
    11: 'labels:s{}',
    12: 'annotations:s{}',
    13: 'ownerReferences:OwnerReference[]',
    14: 'finalizers:s[]',
    17: 'managedFields:ManagedFieldsEntry[]',
  },
  OwnerReference: { 5: 'apiVersion!', 1: 'kind!', 3: 'name!', 4: 'uid!', 6: 'controller:b*', 7: 'blockOwnerDeletion:b*' },
  ManagedFieldsEntry: {
    1: 'manager',
    2: 'operation',
    3: 'apiVersion',
    4: 'time:Time*',
    6: 'fieldsType',
    7: 'fieldsV1:FieldsV1*',
    8: 'subresource',
  },
  ListMeta: { 1: 'selfLink', 2: 'resourceVersion', 3: 'continue', 4: 'remainingItemCount:i64*' },
  LabelSelector: { 1: 'matchLabels:s{}', 2: 'matchExpressions:LabelSelectorRequirement[]' },
  LabelSelectorRequirement: { 1: 'key!', 2: 'operator!', 3: 'values:s[]' },
  Condition: {
    1: 'type!',
    2: 'status!',
    3: 'observedGeneration:i64',
    4: 'lastTransitionTime:Time',
    5: 'reason!',
    6: 'message!',
  },
  DeleteOptions: {
    1: 'gracePeriodSeconds:i64*',
    2: 'preconditions:Preconditions*',
    3: 'orphanDependents:b*',
    4: 'propagationPolicy:s*',
    5: 'dryRun:s[]',
    6: 'ignoreStoreReadErrorWithClusterBreakingPotential:b*',
  },
  Preconditions: { 1: 'uid:s*', 2: 'resourceVersion:s*' },
  Status: { 1: 'metadata:ListMeta', 2: 'status', 3: 'message', 4: 'reason', 5: 'details:StatusDetails*', 6: 'code:i32' },
  StatusDetails: { 1: 'name', 2: 'group', 3: 'kind', 6: 'uid', 4: 'causes:StatusCause[]', 5: 'retryAfterSeconds:i32' },
  StatusCause: { 1: 'reason', 2: 'message', 3: 'field' },
  PartialObjectMetadata: { 1: 'metadata:ObjectMeta' },
});
