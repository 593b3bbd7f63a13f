import type { V1CustomResourceDefinition } from '@kubernetes/client-node';

export const GROUP = 'examples.skiff.dev';
export const VERSION = 'v1';
export const PLURAL = 'webapps';
export const KIND = 'WebApp';

/** A WebApp: run `spec.replicas` copies of `spec.image`; its status reports what the Deployment has. */
export interface WebApp {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; generation?: number; resourceVersion?: string };
  spec: { image: string; replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; observedGeneration?: number };
}

/** The CRD the operator installs: namespaced, a status subresource, printer columns. */
export const WEBAPP_CRD: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: PLURAL, singular: 'webapp', kind: KIND, listKind: `${KIND}List`, shortNames: ['wa'] },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Image', type: 'string', jsonPath: '.spec.image' },
          { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['image'],
                properties: {
                  image: { type: 'string', minLength: 1 },
                  replicas: { type: 'integer', minimum: 0, _default: 1 },
                },
              },
              status: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer' },
                  readyReplicas: { type: 'integer' },
                  observedGeneration: { type: 'integer', format: 'int64' },
                },
              },
            },
          },
        },
      },
    ],
  },
};
