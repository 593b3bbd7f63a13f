import { messages } from '../message-schema.js';

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its
 * binding. Field numbers from the published generated.proto; JSON behaviour
 * from the Go struct tags in types.go (`expression`, `name`, `key`,
 * `valueExpression`, `fieldRef`, `warning` have no omitempty;
 * NamedRuleWithOperations embeds RuleWithOperations inline). Validation and
 * Variable carry a prefix: their names are too generic to stay unique.
 */
export const ADMISSIONREGISTRATION_V1_POLICIES = messages({
  ValidatingAdmissionPolicy: { 1: 'metadata:ObjectMeta', 2: 'spec:ValidatingAdmissionPolicySpec', 3: 'status:ValidatingAdmissionPolicyStatus' },
  ValidatingAdmissionPolicySpec: {
    1: 'paramKind:ParamKind*',
    2: 'matchConstraints:MatchResources*',
    3: 'validations:AdmissionPolicyValidation[]',
    4: 'failurePolicy*',
    5: 'auditAnnotations:AuditAnnotation[]',
    6: 'matchConditions:MatchCondition[]',
    7: 'variables:AdmissionPolicyVariable[]',
  },
  ValidatingAdmissionPolicyStatus: { 1: 'observedGeneration:i64', 2: 'typeChecking:TypeChecking*', 3: 'conditions:Condition[]' },
  ParamKind: { 1: 'apiVersion', 2: 'kind' },
  MatchResources: {
    1: 'namespaceSelector:LabelSelector*',
    2: 'objectSelector:LabelSelector*',
    3: 'resourceRules:NamedRuleWithOperations[]',
    4: 'excludeResourceRules:NamedRuleWithOperations[]',
    7: 'matchPolicy*',
  },
  NamedRuleWithOperations: { 1: 'resourceNames:s[]', 2: 'ruleWithOperations:RuleWithOperations^' },
  AdmissionPolicyValidation: { 1: 'expression!', 2: 'message', 3: 'reason*', 4: 'messageExpression' },
  AuditAnnotation: { 1: 'key!', 2: 'valueExpression!' },
  AdmissionPolicyVariable: { 1: 'name!', 2: 'expression!' },
  TypeChecking: { 1: 'expressionWarnings:ExpressionWarning[]' },
  ExpressionWarning: { 2: 'fieldRef!', 3: 'warning!' },
  ValidatingAdmissionPolicyBinding: { 1: 'metadata:ObjectMeta', 2: 'spec:ValidatingAdmissionPolicyBindingSpec' },
  ValidatingAdmissionPolicyBindingSpec: {
    1: 'policyName',
    2: 'paramRef:ParamRef*',
    3: 'matchResources:MatchResources*',
    4: 'validationActions:s[]',
  },
  ParamRef: { 1: 'name', 2: 'namespace', 3: 'selector:LabelSelector*', 4: 'parameterNotFoundAction*' },
});
