import type { Binding } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { BindPlugin, Handle, PluginFactory } from '../../framework/interface.js';
import type { PodInfo } from '../../framework/pod-info.js';
import type { Status } from '../../framework/status.js';
import { PODS } from '../../../api/resource-refs.js';

export const NAME = 'DefaultBinder';

/** Binds by POSTing a Binding to the pod's `binding` subresource; the API server sets spec.nodeName. */
export class DefaultBinder implements BindPlugin {
  readonly name = NAME;

  constructor(private readonly handle: Pick<Handle, 'client'>) {}

  async bind(_state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined> {
    const m = pod.pod.metadata ?? {};
    const binding: Binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: m.name, namespace: m.namespace, uid: m.uid }, target: { kind: 'Node', name: nodeName } };
    await this.handle.client.resource(PODS).namespace(m.namespace ?? 'default').createSubresource(m.name ?? '', 'binding', binding);
    return undefined;
  }
}

export const factory: PluginFactory = (_args, handle) => new DefaultBinder(handle);
