/**
 * The span attributes skiff's journeys use (the trace query API returns them
 * as they are). Kubernetes object attributes follow the `k8s.*` naming of the
 * OpenTelemetry semantic conventions where one exists.
 */
export const ATTR = {
  /** What kind of hop a span is (see Hop). */
  hop: 'skiff.hop',
  /** Who started the work: a client call, a watch delivery, a queue, a timer. */
  initiator: 'skiff.initiator',
  verb: 'k8s.verb',
  /** `resource` or `resource.group`, e.g. `deployments.apps`. */
  resource: 'k8s.resource',
  subresource: 'k8s.subresource',
  namespace: 'k8s.namespace.name',
  name: 'k8s.object.name',
  resourceVersion: 'k8s.resource_version',
  user: 'k8s.user',
  /** The watch event type a delivery carried (ADDED, MODIFIED, DELETED). */
  watchEvent: 'skiff.watch.event',
  /** Milliseconds from the storage commit to the watcher receiving the event. */
  watchDelayMs: 'skiff.watch.delay_ms',
  /** Milliseconds an item waited in a work queue before a worker took it. */
  queueWaitMs: 'skiff.queue.wait_ms',
  /** How many distinct causes a level-triggered reconcile acted on. */
  causes: 'skiff.causes',
  controller: 'skiff.controller',
  plugin: 'skiff.plugin',
  node: 'k8s.node.name',
  container: 'k8s.container.name',
  image: 'container.image.name',
  httpStatus: 'http.response.status_code',
} as const;

/** The hops of a journey, as `skiff.hop` values. */
export type Hop =
  | 'request'
  | 'authentication'
  | 'authorization'
  | 'admission'
  | 'validation'
  | 'storage'
  | 'watch'
  | 'reconcile'
  | 'queue'
  | 'schedule'
  | 'bind'
  | 'sync'
  | 'sandbox'
  | 'image-pull'
  | 'container-start'
  | 'status'
  | 'proxy'
  | 'dns'
  | 'heartbeat'
  | 'registration';

/** Who initiated a span's work, as `skiff.initiator` values. */
export type Initiator = 'client' | 'watch' | 'queue' | 'timer' | 'internal';
