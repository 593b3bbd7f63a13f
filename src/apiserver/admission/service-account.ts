import { randomInt } from 'node:crypto';
import type { Pod, ServiceAccount, Volume } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { ApiError } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';
import { admissionForbidden } from './forbidden.js';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
const VOLUME_PREFIX = 'kube-api-access-';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
/** Upstream's token lifetime for the projected volume: an hour, plus 7 s so it is told apart from user-chosen ones. */
const TOKEN_SECONDS = 3607;
/** utilrand.String's alphabet: no vowels, no confusable digits. */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** The projected volume upstream's ServiceAccount admission mounts: a bound token, the cluster CA and the namespace. */
export function apiAccessVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIG_MAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/**
 * Upstream's ServiceAccount admission: a new pod runs as `default` unless it
 * names a service account, which must exist; unless automounting is off (on
 * the pod, else on the service account) it gets the `kube-api-access-<x>`
 * projected volume mounted read-only at the service-account path in every
 * container; the account's image pull secrets are copied to a pod that has
 * none. Mirror pods may reference no service account.
 */
export class ServiceAccountAdmission implements MutatingAdmission {
  readonly name = 'ServiceAccount';

  constructor(private readonly serviceAccounts: () => RegistryStore) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods' || attrs.subresource || !attrs.object) return;
    const pod = asKind<Pod>(attrs.object) as Pod;
    if (Object.hasOwn(pod.metadata?.annotations ?? {}, MIRROR_ANNOTATION)) {
      if (pod.spec?.serviceAccountName) throw admissionForbidden(attrs, 'a mirror pod may not reference service accounts');
      return;
    }
    const spec = pod.spec;
    if (!spec) return;
    spec.serviceAccountName ||= 'default';
    const sa = await this.lookup(attrs, spec.serviceAccountName);
    // unlike upstream, a missing `default` (no controller manager running, e.g. `--disable all`) admits the pod without a token
    if (!sa) return;
    const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
    if (automount) mountToken(pod);
    if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = sa.imagePullSecrets.map((s) => ({ name: s.name }));
  }

  /** As upstream, `default` is tried 10 times 100-200 ms apart: the service account controller may be about to create it. */
  private async lookup(attrs: AdmissionAttributes, name: string): Promise<ServiceAccount | undefined> {
    const attempts = name === 'default' ? 10 : 1;
    const pause = 100 + randomInt(100);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, pause));
      try {
        // the cache's copy (upstream's lister; read-only here), the storage's when the cache holds none
        return asKind<ServiceAccount>(await this.serviceAccounts().getShared(attrs.namespace, name)) as ServiceAccount;
      } catch (err) {
        if (!ApiError.is(err, 'NotFound')) throw err;
      }
    }
    if (name === 'default') return undefined;
    throw admissionForbidden(attrs, `error looking up service account ${attrs.namespace}/${name}: serviceaccount "${name}" not found`);
  }
}

function mountToken(pod: Pod): void {
  const spec = pod.spec!;
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  const needing = containers.filter((c) => !(c.volumeMounts ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH));
  if (needing.length === 0) return;
  let volume = (spec.volumes ?? []).find((v) => v.name.startsWith(VOLUME_PREFIX) && v.projected);
  if (!volume) {
    const taken = new Set((spec.volumes ?? []).map((v) => v.name));
    let name: string;
    do name = `${VOLUME_PREFIX}${randomSuffix()}`;
    while (taken.has(name));
    volume = apiAccessVolume(name);
    spec.volumes = [...(spec.volumes ?? []), volume];
  }
  for (const c of needing) c.volumeMounts = [...(c.volumeMounts ?? []), { name: volume.name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }];
}
