import type { Secret } from 'kubernetes-types/core/v1.js';
import type { RegistryAuth } from '../runtime/runtime.js';
import { DOCKER_HUB, parseImageReference } from './image-reference.js';

interface DockerConfigEntry {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  registrytoken?: string;
}

interface KeyringEntry {
  host: string;
  path: string;
  auth: RegistryAuth;
}

/** Docker Hub's historical names in docker config files. */
const HUB_ALIASES = new Set(['index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com', DOCKER_HUB]);

function splitKey(key: string): { host: string; path: string } {
  const bare = key.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  const slash = bare.indexOf('/');
  const host = (slash >= 0 ? bare.slice(0, slash) : bare).toLowerCase();
  let path = slash >= 0 ? bare.slice(slash + 1) : '';
  // `https://index.docker.io/v1/` names the whole of Docker Hub
  if (HUB_ALIASES.has(host) && /^v[12]$/.test(path)) path = '';
  return { host: HUB_ALIASES.has(host) ? DOCKER_HUB : host, path };
}

/** A host pattern matches segment by segment; `*` stands for one segment (upstream's URLsMatch). */
function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.split('.');
  const h = host.split('.');
  if (p.length !== h.length) return false;
  return p.every((seg, i) => {
    const re = new RegExp(`^${seg.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*')}$`);
    return re.test(h[i]!);
  });
}

function toAuth(e: DockerConfigEntry): RegistryAuth {
  let { username, password } = e;
  if (e.auth && !username) {
    const decoded = Buffer.from(e.auth, 'base64').toString();
    const i = decoded.indexOf(':');
    if (i > 0) {
      username = decoded.slice(0, i);
      password = decoded.slice(i + 1);
    }
  }
  return {
    ...(username ? { username } : {}), ...(password ? { password } : {}),
    ...(e.identitytoken ? { identityToken: e.identitytoken } : {}), ...(e.registrytoken ? { registryToken: e.registrytoken } : {}),
  };
}

/** The registry entries of a `kubernetes.io/dockerconfigjson` or `kubernetes.io/dockercfg` secret. */
function entriesOf(secret: Secret): Record<string, DockerConfigEntry> {
  const data = secret.data ?? {};
  try {
    if (data['.dockerconfigjson']) {
      const parsed = JSON.parse(Buffer.from(data['.dockerconfigjson'], 'base64').toString()) as { auths?: Record<string, DockerConfigEntry> };
      return parsed.auths ?? {};
    }
    if (data['.dockercfg']) return JSON.parse(Buffer.from(data['.dockercfg'], 'base64').toString()) as Record<string, DockerConfigEntry>;
  } catch {
    // a malformed secret gives no credentials, as upstream's keyring skips it
  }
  return {};
}

/**
 * The credentials of a pod's image pull secrets, looked up by image as
 * upstream's keyring does: the host must match (globs per segment) and the
 * key's path must prefix the repository; the most specific match comes first.
 */
export class DockerKeyring {
  private readonly entries: KeyringEntry[] = [];

  constructor(secrets: readonly Secret[]) {
    for (const s of secrets) {
      for (const [key, e] of Object.entries(entriesOf(s))) this.entries.push({ ...splitKey(key), auth: toAuth(e) });
    }
  }

  lookup(image: string): RegistryAuth[] {
    const ref = parseImageReference(image);
    return this.entries
      .filter((e) => hostMatches(e.host, ref.registry) && (e.path === '' || ref.repository === e.path || ref.repository.startsWith(`${e.path}/`)))
      .sort((a, b) => b.host.length + b.path.length - (a.host.length + a.path.length))
      .map((e) => e.auth);
  }
}
