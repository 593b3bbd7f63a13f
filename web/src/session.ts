/**
 * The dashboard's login: a bearer token (from `skiff dashboard`'s link, whose
 * fragment never reaches a server, or pasted in) kept in sessionStorage for
 * this tab only. Every API call carries it, so the user sees exactly what
 * RBAC lets them see through the API.
 */
const TOKEN_KEY = 'skiff.token';
const NAMESPACE_KEY = 'skiff.namespace';

export interface Session {
  token: string;
  /** The namespace to open in; '' means all namespaces. */
  namespace: string;
}

/** Reads `#token=…&namespace=…` once, stores it and takes it out of the address bar. */
export function loadSession(): Session | undefined {
  const hash = location.hash.replace(/^#/, '');
  if (hash.startsWith('token=')) {
    const params = new URLSearchParams(hash);
    sessionStorage.setItem(TOKEN_KEY, params.get('token') ?? '');
    sessionStorage.setItem(NAMESPACE_KEY, params.get('namespace') ?? '');
    history.replaceState(null, '', `${location.pathname}#/`);
  }
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { token, namespace: sessionStorage.getItem(NAMESPACE_KEY) ?? '' } : undefined;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(TOKEN_KEY, session.token);
  sessionStorage.setItem(NAMESPACE_KEY, session.namespace);
}

export function clearSession(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(NAMESPACE_KEY);
}
