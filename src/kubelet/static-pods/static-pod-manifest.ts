import { createHash } from 'node:crypto';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseAllDocuments } from 'yaml';

export const CONFIG_MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';

/** A manifest file that does not hold one valid pod. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

/** Whether an API pod is the mirror of some kubelet's static pod. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
}

/**
 * Reads one static pod manifest (YAML or JSON, a single Pod) and defaults it
 * as the kubelet's file source does: the name gets `-<nodeName>`, the
 * namespace defaults to `default`, the pod is bound to this node, and its uid
 * is a hash of node, file and content, so an edit is a new pod while a
 * restarted kubelet recognises an unchanged one. The hash is also the
 * `kubernetes.io/config.hash` annotation the mirror pod carries.
 */
export function parseManifest(text: string, file: string, nodeName: string): Pod {
  let docs: unknown[];
  try {
    docs = parseAllDocuments(text).map((d) => {
      if (d.errors.length) throw new Error(d.errors[0].message);
      return d.toJS() as unknown;
    }).filter((d) => d !== null && d !== undefined);
  } catch (err) {
    throw new ManifestError(file, `not valid YAML or JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (docs.length !== 1) throw new ManifestError(file, `want exactly one Pod, found ${docs.length} documents`);
  const obj = docs[0] as Pod;
  if (typeof obj !== 'object' || obj.kind !== 'Pod' || (obj.apiVersion !== 'v1' && obj.apiVersion !== undefined)) {
    throw new ManifestError(file, `want kind Pod (apiVersion v1), found ${String((obj as { kind?: unknown })?.kind)}`);
  }
  const name = obj.metadata?.name;
  if (!name) throw new ManifestError(file, 'metadata.name is required');
  if (!obj.spec?.containers?.length) throw new ManifestError(file, 'spec.containers must not be empty');
  const uid = obj.metadata?.uid ?? createHash('sha256').update(`host:${nodeName}\nfile:${file}\n`).update(JSON.stringify(obj)).digest('hex').slice(0, 32);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...obj.metadata,
      name: `${name}-${nodeName.toLowerCase()}`,
      namespace: obj.metadata?.namespace || 'default',
      uid,
      annotations: {
        ...obj.metadata?.annotations,
        [CONFIG_HASH_ANNOTATION]: uid,
        [CONFIG_SOURCE_ANNOTATION]: 'file',
      },
    },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      ...obj.spec,
      nodeName,
    },
  };
}
