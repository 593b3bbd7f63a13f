import type { ComponentChildren } from 'preact';
import type { KubeObject } from '../api.js';
import { age, conditionStatus, podReady, podStatus, restarts } from '../format.js';
import { html } from '../html.js';
import { useLiveList } from '../live-list.js';
import { objectHref, type ResourceRef } from '../route.js';

const PODS: ResourceRef = { group: '', version: 'v1', resource: 'pods' };
const DEPLOYMENTS: ResourceRef = { group: 'apps', version: 'v1', resource: 'deployments' };
const SERVICES: ResourceRef = { group: '', version: 'v1', resource: 'services' };
const NODES: ResourceRef = { group: '', version: 'v1', resource: 'nodes' };

function collection(r: ResourceRef, namespace: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.resource}` : `${base}/${r.resource}`;
}

function link(r: ResourceRef, o: KubeObject, text?: string) {
  return html`<a href=${objectHref({ ...r, namespace: o.metadata.namespace ?? '', name: o.metadata.name })}>${text ?? o.metadata.name}</a>`;
}

function Section(props: { title: string; testid: string; count: number; error?: string; loaded: boolean; head: string[]; children: ComponentChildren }) {
  return html`
    <section class="card" data-testid=${props.testid}>
      <h2>${props.title} <span class="count">${props.loaded && !props.error ? props.count : ''}</span></h2>
      ${props.error
        ? html`<p class="error">${props.error}</p>`
        : props.loaded && props.count === 0
          ? html`<p class="empty">none</p>`
          : html`<table>
              <thead><tr>${props.head.map((h) => html`<th>${h}</th>`)}</tr></thead>
              <tbody>${props.children}</tbody>
            </table>`}
    </section>
  `;
}

function NamespacePicker({ namespace, onNamespace }: { namespace: string; onNamespace: (ns: string) => void }) {
  const namespaces = useLiveList<KubeObject>('/api/v1/namespaces');
  const names = namespaces.items.map((n) => n.metadata.name);
  return html`
    <label class="namespace">
      Namespace
      ${namespaces.error
        ? html`<input data-testid="namespace-input" value=${namespace} placeholder="namespace" onChange=${(e: Event) => onNamespace((e.target as HTMLInputElement).value.trim())} />`
        : html`<select data-testid="namespace-select" value=${namespace} onChange=${(e: Event) => onNamespace((e.target as HTMLSelectElement).value)}>
            <option value="">all namespaces</option>
            ${names.map((n) => html`<option value=${n}>${n}</option>`)}
          </select>`}
    </label>
  `;
}

export function Overview({ namespace, onNamespace }: { namespace: string; onNamespace: (ns: string) => void }) {
  const nodes = useLiveList<KubeObject>(collection(NODES, ''));
  const deployments = useLiveList<KubeObject>(collection(DEPLOYMENTS, namespace));
  const pods = useLiveList<KubeObject>(collection(PODS, namespace));
  const services = useLiveList<KubeObject>(collection(SERVICES, namespace));
  const podsOn = (node: string) => pods.items.filter((p) => p.spec?.nodeName === node).length;
  return html`
    <div class="toolbar"><${NamespacePicker} namespace=${namespace} onNamespace=${onNamespace} /></div>
    <${Section} title="Nodes" testid="nodes" count=${nodes.items.length} error=${nodes.error} loaded=${nodes.loaded} head=${['Name', 'Ready', 'CPU', 'Memory', 'Pod CIDR', 'Pods', 'Version', 'Age']}>
      ${nodes.items.map(
        (n) => html`<tr>
          <td>${link(NODES, n)}</td>
          <td class=${conditionStatus(n, 'Ready') === 'True' ? 'ok' : 'bad'}>${conditionStatus(n, 'Ready') === 'True' ? 'Ready' : 'NotReady'}</td>
          <td>${n.status?.capacity?.cpu ?? ''}</td>
          <td>${n.status?.capacity?.memory ?? ''}</td>
          <td>${n.spec?.podCIDR ?? ''}</td>
          <td>${podsOn(n.metadata.name)}</td>
          <td>${n.status?.nodeInfo?.kubeletVersion ?? ''}</td>
          <td>${age(n.metadata.creationTimestamp)}</td>
        </tr>`,
      )}
    <//>
    <${Section} title="Deployments" testid="deployments" count=${deployments.items.length} error=${deployments.error} loaded=${deployments.loaded} head=${['Namespace', 'Name', 'Ready', 'Up-to-date', 'Available', 'Age']}>
      ${deployments.items.map(
        (d) => html`<tr>
          <td>${d.metadata.namespace}</td>
          <td>${link(DEPLOYMENTS, d)}</td>
          <td>${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}</td>
          <td>${d.status?.updatedReplicas ?? 0}</td>
          <td>${d.status?.availableReplicas ?? 0}</td>
          <td>${age(d.metadata.creationTimestamp)}</td>
        </tr>`,
      )}
    <//>
    <${Section} title="Pods" testid="pods" count=${pods.items.length} error=${pods.error} loaded=${pods.loaded} head=${['Namespace', 'Name', 'Ready', 'Status', 'Restarts', 'Node', 'IP', 'Age']}>
      ${pods.items.map(
        (p) => html`<tr>
          <td>${p.metadata.namespace}</td>
          <td>${link(PODS, p)}</td>
          <td>${podReady(p)}</td>
          <td class=${'phase ' + podStatus(p)}>${podStatus(p)}</td>
          <td>${restarts(p)}</td>
          <td>${p.spec?.nodeName ?? ''}</td>
          <td>${p.status?.podIP ?? ''}</td>
          <td>${age(p.metadata.creationTimestamp)}</td>
        </tr>`,
      )}
    <//>
    <${Section} title="Services" testid="services" count=${services.items.length} error=${services.error} loaded=${services.loaded} head=${['Namespace', 'Name', 'Type', 'Cluster IP', 'Ports', 'Age']}>
      ${services.items.map(
        (s) => html`<tr>
          <td>${s.metadata.namespace}</td>
          <td>${link(SERVICES, s)}</td>
          <td>${s.spec?.type ?? ''}</td>
          <td>${s.spec?.clusterIP ?? ''}</td>
          <td>${((s.spec?.ports ?? []) as { port: number; protocol?: string; nodePort?: number }[]).map((p) => `${p.port}${p.nodePort ? ':' + p.nodePort : ''}/${p.protocol ?? 'TCP'}`).join(', ')}</td>
          <td>${age(s.metadata.creationTimestamp)}</td>
        </tr>`,
      )}
    <//>
  `;
}
