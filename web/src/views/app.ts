import { useEffect, useState } from 'preact/hooks';
import { apiPost, setToken } from '../api.js';
import { html } from '../html.js';
import { useRoute } from '../route.js';
import { clearSession, loadSession, saveSession, type Session } from '../session.js';
import { Login } from './login.js';
import { ObjectPage } from './object-page.js';
import { Overview } from './overview.js';

function useUsername(session: Session | undefined): string {
  const [name, setName] = useState('');
  useEffect(() => {
    if (!session) return;
    apiPost<{ status?: { userInfo?: { username?: string } } }>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    })
      .then((r) => setName(r.status?.userInfo?.username ?? ''))
      .catch(() => setName(''));
  }, [session]);
  return name;
}

export function App() {
  const [session, setSession] = useState<Session | undefined>(() => loadSession());
  if (session) setToken(session.token);
  const route = useRoute();
  const username = useUsername(session);
  if (!session) {
    return html`<${Login}
      onLogin=${(s: Session) => {
        saveSession(s);
        setSession(s);
      }}
    />`;
  }
  const logout = () => {
    clearSession();
    setSession(undefined);
  };
  return html`
    <header class="top">
      <a class="brand" href="#/">skiff</a>
      <span class="who" data-testid="username">${username}</span>
      <button class="link" onClick=${logout}>log out</button>
    </header>
    <main>
      ${route.page === 'object'
        ? html`<${ObjectPage} key=${JSON.stringify(route.ref)} objectRef=${route.ref} tab=${route.tab} />`
        : html`<${Overview}
            namespace=${session.namespace}
            onNamespace=${(namespace: string) => {
              const next = { ...session, namespace };
              saveSession(next);
              setSession(next);
            }}
          />`}
    </main>
  `;
}
