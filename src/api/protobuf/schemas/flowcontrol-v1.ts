import { messages } from '../message-schema.js';

/**
 * flowcontrol.apiserver.k8s.io/v1: API Priority and Fairness (FlowSchema,
 * PriorityLevelConfiguration). Field numbers from the published
 * generated.proto; JSON behaviour from the Go struct tags in types.go.
 */
export const FLOWCONTROL_V1 = messages({
  FlowSchema: { 1: 'metadata:ObjectMeta', 2: 'spec:FlowSchemaSpec', 3: 'status:FlowSchemaStatus' },
  FlowSchemaSpec: {
    1: 'priorityLevelConfiguration:PriorityLevelConfigurationReference!',
    2: 'matchingPrecedence:i32!',
    3: 'distinguisherMethod:FlowDistinguisherMethod*',
    4: 'rules:PolicyRulesWithSubjects[]',
  },
  FlowDistinguisherMethod: { 1: 'type!' },
  PriorityLevelConfigurationReference: { 1: 'name!' },
  PolicyRulesWithSubjects: { 1: 'subjects:FlowSubject[]!', 2: 'resourceRules:ResourcePolicyRule[]', 3: 'nonResourceRules:NonResourcePolicyRule[]' },
  FlowSubject: { 1: 'kind!', 2: 'user:UserSubject*', 3: 'group:GroupSubject*', 4: 'serviceAccount:ServiceAccountSubject*' },
  UserSubject: { 1: 'name!' },
  GroupSubject: { 1: 'name!' },
  ServiceAccountSubject: { 1: 'namespace!', 2: 'name!' },
  ResourcePolicyRule: { 1: 'verbs:s[]!', 2: 'apiGroups:s[]!', 3: 'resources:s[]!', 4: 'clusterScope:b', 5: 'namespaces:s[]!' },
  NonResourcePolicyRule: { 1: 'verbs:s[]!', 6: 'nonResourceURLs:s[]!' },
  FlowSchemaStatus: { 1: 'conditions:FlowSchemaCondition[]' },
  FlowSchemaCondition: { 1: 'type', 2: 'status', 3: 'lastTransitionTime:Time', 4: 'reason', 5: 'message' },
  PriorityLevelConfiguration: { 1: 'metadata:ObjectMeta', 2: 'spec:PriorityLevelConfigurationSpec', 3: 'status:PriorityLevelConfigurationStatus' },
  PriorityLevelConfigurationSpec: { 1: 'type!', 2: 'limited:LimitedPriorityLevelConfiguration*', 3: 'exempt:ExemptPriorityLevelConfiguration*' },
  LimitedPriorityLevelConfiguration: {
    1: 'nominalConcurrencyShares:i32*!',
    2: 'limitResponse:LimitResponse',
    3: 'lendablePercent:i32*',
    4: 'borrowingLimitPercent:i32*',
  },
  ExemptPriorityLevelConfiguration: { 1: 'nominalConcurrencyShares:i32*', 2: 'lendablePercent:i32*' },
  LimitResponse: { 1: 'type!', 2: 'queuing:QueuingConfiguration*' },
  QueuingConfiguration: { 1: 'queues:i32!', 2: 'handSize:i32!', 3: 'queueLengthLimit:i32!' },
  PriorityLevelConfigurationStatus: { 1: 'conditions:PriorityLevelConfigurationCondition[]' },
  PriorityLevelConfigurationCondition: { 1: 'type', 2: 'status', 3: 'lastTransitionTime:Time', 4: 'reason', 5: 'message' },
});
