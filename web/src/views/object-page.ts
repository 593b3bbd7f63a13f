import { useEffect, useState } from 'preact/hooks';
import { stringify } from 'yaml';
import { ApiFailure, apiGet, apiGetText, resourcePath, type KubeObject } from '../api.js';
import { age } from '../format.js';
import { html } from '../html.js';
import { useLiveList } from '../live-list.js';
import { objectHref, resourceOfKind, type ObjectRef } from '../route.js';
import { JourneyView } from './journey-view.js';

const TABS = ['summary', 'yaml', 'events', 'logs', 'journey'] as const;

/** The owner chain, nearest first: ReplicaSet → Deployment, Job → CronJob, … */
function useOwnerChain(obj: KubeObject | undefined): { ref: ObjectRef; kind: string }[] {
  const [chain, setChain] = useState<{ ref: ObjectRef; kind: string }[]>([]);
  useEffect(() => {
    const abort = new AbortController();
    const walk = async () => {
      const found: { ref: ObjectRef; kind: string }[] = [];
      let current = obj;
      while (current && found.length < 5) {
        const owner = current.metadata.ownerReferences?.find((o) => o.controller) ?? current.metadata.ownerReferences?.[0];
        const r = owner && resourceOfKind(owner.kind);
        if (!owner || !r) break;
        const ref = { ...r, namespace: current.metadata.namespace ?? '', name: owner.name };
        found.push({ ref, kind: owner.kind });
        current = await apiGet<KubeObject>(resourcePath(r, ref.namespace, ref.name), abort.signal).catch(() => undefined);
      }
      if (!abort.signal.aborted) setChain(found);
    };
    void walk();
    return () => abort.abort();
  }, [obj?.metadata.uid, JSON.stringify(obj?.metadata.ownerReferences ?? [])]);
  return chain;
}

function Summary({ obj }: { obj: KubeObject }) {
  const owners = useOwnerChain(obj);
  const conditions = (obj.status?.conditions ?? []) as { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
  return html`
    <dl class="meta">
      <dt>Kind</dt><dd>${obj.kind}</dd>
      ${obj.metadata.namespace ? html`<dt>Namespace</dt><dd>${obj.metadata.namespace}</dd>` : ''}
      <dt>Created</dt><dd>${obj.metadata.creationTimestamp} (${age(obj.metadata.creationTimestamp)})</dd>
      <dt>Resource version</dt><dd>${obj.metadata.resourceVersion}</dd>
      <dt>Labels</dt><dd>${Object.entries(obj.metadata.labels ?? {}).map(([k, v]) => html`<span class="chip">${k}=${v}</span>`)}</dd>
      <dt>Owners</dt>
      <dd data-testid="owners">${owners.length ? owners.map((o) => html`<a class="chip" href=${objectHref(o.ref)}>${o.kind}/${o.ref.name}</a>`) : 'none'}</dd>
    </dl>
    ${conditions.length
      ? html`<table>
          <thead><tr><th>Condition</th><th>Status</th><th>Reason</th><th>Message</th><th>Since</th></tr></thead>
          <tbody>${conditions.map((c) => html`<tr><td>${c.type}</td><td>${c.status}</td><td>${c.reason ?? ''}</td><td>${c.message ?? ''}</td><td>${age(c.lastTransitionTime)}</td></tr>`)}</tbody>
        </table>`
      : ''}
  `;
}

function Yaml({ obj }: { obj: KubeObject }) {
  const shown = { ...obj, metadata: { ...obj.metadata, managedFields: undefined } };
  return html`<pre class="yaml" data-testid="yaml">${stringify(shown)}</pre>`;
}

function Events({ obj }: { obj: KubeObject }) {
  const ns = obj.metadata.namespace ?? 'default';
  const selector = encodeURIComponent(`involvedObject.name=${obj.metadata.name}`);
  const events = useLiveList<KubeObject & { type?: string; reason?: string; message?: string; count?: number; lastTimestamp?: string; source?: { component?: string }; reportingComponent?: string; involvedObject?: { uid?: string } }>(
    `/api/v1/namespaces/${encodeURIComponent(ns)}/events?fieldSelector=${selector}`,
  );
  const mine = events.items.filter((e) => !e.involvedObject?.uid || e.involvedObject.uid === obj.metadata.uid);
  if (events.error) return html`<p class="error">${events.error}</p>`;
  if (events.loaded && mine.length === 0) return html`<p class="empty">no events</p>`;
  return html`<table data-testid="events">
    <thead><tr><th>Type</th><th>Reason</th><th>From</th><th>Message</th><th>Count</th><th>Last seen</th></tr></thead>
    <tbody>${mine.map((e) => html`<tr class=${e.type === 'Warning' ? 'warning' : ''}><td>${e.type}</td><td>${e.reason}</td><td>${e.source?.component ?? e.reportingComponent ?? ''}</td><td>${e.message}</td><td>${e.count ?? 1}</td><td>${age(e.lastTimestamp ?? e.metadata.creationTimestamp)}</td></tr>`)}</tbody>
  </table>`;
}

function Logs({ obj }: { obj: KubeObject }) {
  const containers = ((obj.spec?.containers ?? []) as { name: string }[]).map((c) => c.name);
  const [container, setContainer] = useState(containers[0] ?? '');
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    const abort = new AbortController();
    const path = `/api/v1/namespaces/${encodeURIComponent(obj.metadata.namespace ?? '')}/pods/${encodeURIComponent(obj.metadata.name)}/log?container=${encodeURIComponent(container)}&tailLines=500`;
    const poll = async () => {
      while (!abort.signal.aborted) {
        try {
          setText(await apiGetText(path, abort.signal));
          setError('');
        } catch (err) {
          if (abort.signal.aborted) return;
          setError(err instanceof ApiFailure ? err.message : String(err));
        }
        await new Promise((r) => setTimeout(r, 2000));
      }
    };
    void poll();
    return () => abort.abort();
  }, [container, obj.metadata.uid]);
  return html`
    ${containers.length > 1 ? html`<select value=${container} onChange=${(e: Event) => setContainer((e.target as HTMLSelectElement).value)}>${containers.map((c) => html`<option>${c}</option>`)}</select>` : ''}
    ${error ? html`<p class="error">${error}</p>` : html`<pre class="logs" data-testid="logs">${text || '(no output yet)'}</pre>`}
  `;
}

export function ObjectPage({ objectRef, tab }: { objectRef: ObjectRef; tab: string }) {
  const collection = resourcePath(objectRef, objectRef.namespace);
  const live = useLiveList<KubeObject>(`${collection}?fieldSelector=${encodeURIComponent(`metadata.name=${objectRef.name}`)}`);
  const obj = live.items[0];
  const tabs = TABS.filter((t) => t !== 'logs' || objectRef.resource === 'pods');
  return html`
    <nav class="crumbs"><a href="#/">overview</a> / ${objectRef.resource} / ${objectRef.namespace ? `${objectRef.namespace} / ` : ''}<strong data-testid="object-name">${objectRef.name}</strong></nav>
    <nav class="tabs">
      ${tabs.map((t) => html`<a class=${t === tab ? 'active' : ''} data-testid=${`tab-${t}`} href=${objectHref(objectRef, t)}>${t}</a>`)}
    </nav>
    ${tab === 'journey'
      ? html`<${JourneyView} objectRef=${objectRef} />`
      : live.error
        ? html`<p class="error">${live.error}</p>`
        : !live.loaded
          ? html`<p class="empty">loading…</p>`
          : !obj
            ? html`<p class="error">${objectRef.resource} "${objectRef.name}" not found</p>`
            : tab === 'yaml'
              ? html`<${Yaml} obj=${obj} />`
              : tab === 'events'
                ? html`<${Events} obj=${obj} />`
                : tab === 'logs'
                  ? html`<${Logs} obj=${obj} />`
                  : html`<${Summary} obj=${obj} />`}
  `;
}
