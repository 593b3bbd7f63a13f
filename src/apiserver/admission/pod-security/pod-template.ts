import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../../api/object.js';

type Template = { metadata?: ObjectMeta; spec?: PodSpec } | undefined;

/** Where each workload resource keeps its pod template (upstream's DefaultPodSpecExtractor). */
const TEMPLATES: Record<string, (o: Record<string, unknown>) => Template> = {
  '/replicationcontrollers': (o) => (o.spec as { template?: Template } | undefined)?.template,
  '/podtemplates': (o) => o.template as Template,
  'apps/replicasets': (o) => (o.spec as { template?: Template } | undefined)?.template,
  'apps/deployments': (o) => (o.spec as { template?: Template } | undefined)?.template,
  'apps/statefulsets': (o) => (o.spec as { template?: Template } | undefined)?.template,
  'apps/daemonsets': (o) => (o.spec as { template?: Template } | undefined)?.template,
  'batch/jobs': (o) => (o.spec as { template?: Template } | undefined)?.template,
  'batch/cronjobs': (o) => (o.spec as { jobTemplate?: { spec?: { template?: Template } } } | undefined)?.jobTemplate?.spec?.template,
};

export function isPodController(group: string, resource: string): boolean {
  return `${group}/${resource}` in TEMPLATES;
}

/** The pod template of a workload object, or undefined when it has none. */
export function podTemplateOf(group: string, resource: string, obj: KubeObject): Template {
  return TEMPLATES[`${group}/${resource}`]?.(obj as Record<string, unknown>);
}
