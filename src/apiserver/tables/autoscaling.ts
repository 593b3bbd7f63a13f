import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HpaV1 } from 'kubernetes-types/autoscaling/v1.js';
import { hpaToV2 } from '../registry/hpa-conversion.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

const unknown = '<unknown>';

/** Upstream's formatHPAMetrics: `cpu: 250%/50%`, `memory: 10Mi/100Mi`, at most two then `+ N more...`. */
export function formatHpaMetrics(specs: MetricSpec[], statuses: MetricStatus[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const st = statuses[i];
    switch (spec.type) {
      case 'Resource':
      case 'ContainerResource': {
        const src = spec.type === 'Resource' ? spec.resource : spec.containerResource;
        const cur = spec.type === 'Resource' ? st?.resource : st?.containerResource;
        if (src?.target?.averageValue !== undefined) return `${src.name}: ${cur?.current?.averageValue ?? unknown}/${src.target.averageValue}`;
        const current = cur?.current?.averageUtilization !== undefined ? `${cur.current.averageUtilization}%` : unknown;
        const target = src?.target?.averageUtilization !== undefined ? `${src.target.averageUtilization}%` : '<auto>';
        return `${src?.name ?? ''}: ${current}/${target}`;
      }
      case 'Pods':
        return `${st?.pods?.current?.averageValue ?? unknown}/${spec.pods?.target?.averageValue ?? ''}`;
      case 'Object':
        if (spec.object?.target?.averageValue !== undefined) return `${st?.object?.current?.averageValue ?? unknown}/${spec.object.target.averageValue} (avg)`;
        return `${st?.object?.current?.value ?? unknown}/${spec.object?.target?.value ?? ''}`;
      case 'External':
        if (spec.external?.target?.averageValue !== undefined) return `${st?.external?.current?.averageValue ?? unknown}/${spec.external.target.averageValue} (avg)`;
        return `${st?.external?.current?.value ?? unknown}/${spec.external?.target?.value ?? ''}`;
      default:
        return '<unknown type>';
    }
  });
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

/** Both versions print as upstream prints the internal object (v1 is converted first). */
export const horizontalPodAutoscalerTable = convertor<HorizontalPodAutoscaler | HpaV1>(
  [
    NAME_COLUMN,
    column('Reference', 'string', 'reference to target resource'),
    column('Targets', 'string', 'the current and target metric values'),
    column('MinPods', 'string', 'minimum number of pods'),
    column('MaxPods', 'integer', 'maximum number of pods'),
    column('Replicas', 'integer', 'current number of replicas'),
    AGE_COLUMN,
  ],
  (obj, now) => {
    const hpa = obj.apiVersion === 'autoscaling/v1' ? hpaToV2(obj as HpaV1) : (obj as HorizontalPodAutoscaler);
    const ref = hpa.spec?.scaleTargetRef;
    return [
      hpa.metadata?.name ?? '',
      `${ref?.kind ?? ''}/${ref?.name ?? ''}`,
      formatHpaMetrics(hpa.spec?.metrics ?? [], hpa.status?.currentMetrics ?? []),
      hpa.spec?.minReplicas !== undefined ? String(hpa.spec.minReplicas) : '<unset>',
      hpa.spec?.maxReplicas ?? 0,
      hpa.status?.currentReplicas ?? 0,
      translateTimestampSince(hpa.metadata?.creationTimestamp, now),
    ];
  },
);
