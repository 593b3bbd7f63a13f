import { messages } from '../message-schema.js';

/**
 * autoscaling/v2 HorizontalPodAutoscaler and the autoscaling/v1 form of the
 * same objects (messages suffixed V1: names are unique across groups).
 * Field numbers from the published generated.proto files.
 */
export const AUTOSCALING = messages({
  HorizontalPodAutoscaler: { 1: 'metadata:ObjectMeta', 2: 'spec:HorizontalPodAutoscalerSpec', 3: 'status:HorizontalPodAutoscalerStatus' },
  HorizontalPodAutoscalerSpec: {
    1: 'scaleTargetRef:CrossVersionObjectReference',
    2: 'minReplicas:i32*',
    3: 'maxReplicas:i32!',
    4: 'metrics:MetricSpec[]',
    5: 'behavior:HorizontalPodAutoscalerBehavior*',
  },
  CrossVersionObjectReference: { 1: 'kind!', 2: 'name!', 3: 'apiVersion' },
  MetricSpec: {
    1: 'type!',
    2: 'object:ObjectMetricSource*',
    3: 'pods:PodsMetricSource*',
    4: 'resource:ResourceMetricSource*',
    7: 'containerResource:ContainerResourceMetricSource*',
    5: 'external:ExternalMetricSource*',
  },
  ObjectMetricSource: { 1: 'describedObject:CrossVersionObjectReference', 2: 'target:MetricTarget', 3: 'metric:MetricIdentifier' },
  PodsMetricSource: { 1: 'metric:MetricIdentifier', 2: 'target:MetricTarget' },
  ResourceMetricSource: { 1: 'name!', 2: 'target:MetricTarget' },
  ContainerResourceMetricSource: { 1: 'name!', 2: 'target:MetricTarget', 3: 'container!' },
  ExternalMetricSource: { 1: 'metric:MetricIdentifier', 2: 'target:MetricTarget' },
  MetricIdentifier: { 1: 'name!', 2: 'selector:LabelSelector*' },
  MetricTarget: { 1: 'type!', 2: 'value:Quantity*', 3: 'averageValue:Quantity*', 4: 'averageUtilization:i32*' },
  HorizontalPodAutoscalerBehavior: { 1: 'scaleUp:HPAScalingRules*', 2: 'scaleDown:HPAScalingRules*' },
  HPAScalingRules: { 3: 'stabilizationWindowSeconds:i32*', 1: 'selectPolicy:s*', 2: 'policies:HPAScalingPolicy[]', 4: 'tolerance:Quantity*' },
  HPAScalingPolicy: { 1: 'type!', 2: 'value:i32!', 3: 'periodSeconds:i32!' },
  HorizontalPodAutoscalerStatus: {
    1: 'observedGeneration:i64*',
    2: 'lastScaleTime:Time*',
    3: 'currentReplicas:i32',
    4: 'desiredReplicas:i32!',
    5: 'currentMetrics:MetricStatus[]',
    6: 'conditions:HorizontalPodAutoscalerCondition[]',
  },
  HorizontalPodAutoscalerCondition: { 1: 'type!', 2: 'status!', 3: 'lastTransitionTime:Time', 4: 'reason', 5: 'message' },
  MetricStatus: {
    1: 'type!',
    2: 'object:ObjectMetricStatus*',
    3: 'pods:PodsMetricStatus*',
    4: 'resource:ResourceMetricStatus*',
    7: 'containerResource:ContainerResourceMetricStatus*',
    5: 'external:ExternalMetricStatus*',
  },
  ObjectMetricStatus: { 1: 'metric:MetricIdentifier', 2: 'current:MetricValueStatus', 3: 'describedObject:CrossVersionObjectReference' },
  PodsMetricStatus: { 1: 'metric:MetricIdentifier', 2: 'current:MetricValueStatus' },
  ResourceMetricStatus: { 1: 'name!', 2: 'current:MetricValueStatus' },
  ContainerResourceMetricStatus: { 1: 'name!', 2: 'current:MetricValueStatus', 3: 'container!' },
  ExternalMetricStatus: { 1: 'metric:MetricIdentifier', 2: 'current:MetricValueStatus' },
  MetricValueStatus: { 1: 'value:Quantity*', 2: 'averageValue:Quantity*', 3: 'averageUtilization:i32*' },

  HorizontalPodAutoscalerV1: { 1: 'metadata:ObjectMeta', 2: 'spec:HorizontalPodAutoscalerSpecV1', 3: 'status:HorizontalPodAutoscalerStatusV1' },
  HorizontalPodAutoscalerSpecV1: {
    1: 'scaleTargetRef:CrossVersionObjectReference',
    2: 'minReplicas:i32*',
    3: 'maxReplicas:i32!',
    4: 'targetCPUUtilizationPercentage:i32*',
  },
  HorizontalPodAutoscalerStatusV1: {
    1: 'observedGeneration:i64*',
    2: 'lastScaleTime:Time*',
    3: 'currentReplicas:i32!',
    4: 'desiredReplicas:i32!',
    5: 'currentCPUUtilizationPercentage:i32*',
  },
});
