/** An image reference split as the docker distribution grammar does (`[registry/]repository[:tag][@digest]`). */
export interface ImageReference {
  /** The registry host (with port); `docker.io` when the name has none. */
  registry: string;
  /** The path inside the registry; `library/<name>` for Docker Hub's official images. */
  repository: string;
  tag?: string;
  digest?: string;
}

export const DOCKER_HUB = 'docker.io';

/** Parses an image name; a first component is a registry when it has a `.` or `:` or is `localhost`. */
export function parseImageReference(image: string): ImageReference {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasRegistry ? first : DOCKER_HUB;
  let repository = hasRegistry ? rest.slice(slash + 1) : rest;
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;
  return { registry, repository, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

/** Upstream's default pull policy: `Always` for `:latest` or no tag (unless pinned by digest), else `IfNotPresent`. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const ref = parseImageReference(image);
  if (ref.digest) return 'IfNotPresent';
  return !ref.tag || ref.tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** The image name with `:latest` added when it has neither tag nor digest (upstream's applyDefaultImageTag). */
export function withDefaultTag(image: string): string {
  const ref = parseImageReference(image);
  return ref.tag || ref.digest ? image : `${image}:latest`;
}
