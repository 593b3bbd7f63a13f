import type { ApiClient } from './api-client.js';
import { NAMESPACE } from './manifests.js';

interface Workload {
  metadata: { name: string; generation?: number };
  spec: { replicas?: number };
  status?: { observedGeneration?: number; replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number; currentRevision?: string; updateRevision?: string };
}

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string };
}

/**
 * What is still short of its spec, or an empty list once everything has
 * converged: nodes Ready, each Deployment and the StatefulSet fully
 * rolled out with all replicas ready and no extra pods, every Job complete.
 */
export async function unconverged(client: ApiClient, nodeNames: readonly string[], liveJobs: readonly string[]): Promise<string[]> {
  const get = async <T>(path: string): Promise<T> => {
    const a = await client.request<T>('GET', path);
    if (a.status !== 200) throw new Error(`GET ${path} answered ${a.status}`);
    return a.json;
  };
  const out: string[] = [];
  const nodes = await get<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>('/api/v1/nodes');
  for (const name of nodeNames) {
    const node = nodes.items.find((n) => n.metadata.name === name);
    if (node?.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') out.push(`node ${name} not Ready`);
  }
  const pods = (await get<{ items: Pod[] }>(`/api/v1/namespaces/${NAMESPACE}/pods`)).items;
  const deployments = (await get<{ items: Workload[] }>(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments`)).items;
  for (const d of deployments) {
    const want = d.spec.replicas ?? 1;
    const s = d.status ?? {};
    const podCount = pods.filter((p) => p.metadata.labels?.app === d.metadata.name && !p.metadata.deletionTimestamp).length;
    if ((s.observedGeneration ?? 0) < (d.metadata.generation ?? 0) || s.updatedReplicas !== want || s.readyReplicas !== want || s.availableReplicas !== want || s.replicas !== want || podCount !== want) {
      out.push(`deployment ${d.metadata.name}: want ${want}, status ${JSON.stringify(s)}, ${podCount} pods`);
    }
  }
  const sets = (await get<{ items: Workload[] }>(`/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets`)).items;
  for (const s of sets) {
    const want = s.spec.replicas ?? 1;
    const st = s.status ?? {};
    const running = pods.filter((p) => p.metadata.labels?.app === s.metadata.name && p.status.phase === 'Running' && !p.metadata.deletionTimestamp).length;
    if ((st.observedGeneration ?? 0) < (s.metadata.generation ?? 0) || st.readyReplicas !== want || st.updatedReplicas !== want || st.currentRevision !== st.updateRevision || running !== want) {
      out.push(`statefulset ${s.metadata.name}: want ${want}, status ${JSON.stringify(st)}, ${running} running`);
    }
  }
  const jobs = (await get<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>(`/apis/batch/v1/namespaces/${NAMESPACE}/jobs`)).items;
  for (const name of liveJobs) {
    const j = jobs.find((x) => x.metadata.name === name);
    if (!j) continue;
    if (!j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) out.push(`job ${name} not Complete`);
  }
  return out;
}
