import { messages } from '../message-schema.js';

/**
 * apiregistration.k8s.io/v1 APIService (kube-aggregator). Field numbers from
 * the published generated.proto (6 is retired); JSON behaviour from the Go
 * struct tags in types.go: `service` is a pointer without omitempty (null
 * when local), `groupPriorityMinimum` and `versionPriority` have no
 * omitempty, `lastTransitionTime` is a struct value. ServiceReference carries
 * a prefix: admissionregistration has one of that name.
 */
export const APIREGISTRATION_V1 = messages({
  APIService: { 1: 'metadata:ObjectMeta', 2: 'spec:APIServiceSpec', 3: 'status:APIServiceStatus' },
  APIServiceSpec: {
    1: 'service:APIServiceServiceReference*!',
    2: 'group',
    3: 'version',
    4: 'insecureSkipTLSVerify:b',
    5: 'caBundle:y',
    7: 'groupPriorityMinimum:i32!',
    8: 'versionPriority:i32!',
  },
  APIServiceServiceReference: { 1: 'namespace', 2: 'name', 3: 'port:i32*' },
  APIServiceStatus: { 1: 'conditions:APIServiceCondition[]' },
  APIServiceCondition: { 1: 'type!', 2: 'status!', 3: 'lastTransitionTime:Time', 4: 'reason', 5: 'message' },
});
