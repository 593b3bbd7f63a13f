import { messages } from '../message-schema.js';

/**
 * admissionregistration.k8s.io/v1 webhook configurations. Field numbers from
 * the published generated.proto; JSON behaviour from the Go struct tags in
 * types.go (`sideEffects` and `admissionReviewVersions` have no omitempty;
 * `clientConfig` is a struct value). Message names carry a prefix where
 * another group has a message of the same name (ServiceReference, Rule).
 */
export const ADMISSIONREGISTRATION_V1 = messages({
  MutatingWebhookConfiguration: { 1: 'metadata:ObjectMeta', 2: 'webhooks:MutatingWebhook[]' },
  ValidatingWebhookConfiguration: { 1: 'metadata:ObjectMeta', 2: 'webhooks:ValidatingWebhook[]' },
  MutatingWebhook: {
    1: 'name!',
    2: 'clientConfig:WebhookClientConfig!',
    3: 'rules:RuleWithOperations[]',
    4: 'failurePolicy*',
    9: 'matchPolicy*',
    5: 'namespaceSelector:LabelSelector*',
    11: 'objectSelector:LabelSelector*',
    6: 'sideEffects*!',
    7: 'timeoutSeconds:i32*',
    8: 'admissionReviewVersions:s[]!',
    10: 'reinvocationPolicy*',
    12: 'matchConditions:MatchCondition[]',
  },
  ValidatingWebhook: {
    1: 'name!',
    2: 'clientConfig:WebhookClientConfig!',
    3: 'rules:RuleWithOperations[]',
    4: 'failurePolicy*',
    9: 'matchPolicy*',
    5: 'namespaceSelector:LabelSelector*',
    10: 'objectSelector:LabelSelector*',
    6: 'sideEffects*!',
    7: 'timeoutSeconds:i32*',
    8: 'admissionReviewVersions:s[]!',
    11: 'matchConditions:MatchCondition[]',
  },
  RuleWithOperations: { 1: 'operations:s[]', 2: 'rule:AdmissionRule^' },
  AdmissionRule: { 1: 'apiGroups:s[]', 2: 'apiVersions:s[]', 3: 'resources:s[]', 4: 'scope*' },
  WebhookClientConfig: { 3: 'url*', 1: 'service:WebhookServiceReference*', 2: 'caBundle:y' },
  WebhookServiceReference: { 1: 'namespace!', 2: 'name!', 3: 'path*', 4: 'port:i32*' },
  MatchCondition: { 1: 'name!', 2: 'expression!' },
});
