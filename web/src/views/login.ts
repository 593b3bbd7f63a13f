import { useState } from 'preact/hooks';
import { html } from '../html.js';
import type { Session } from '../session.js';

/** Paste a bearer token (`skiff dashboard` prints a link that skips this page). */
export function Login({ onLogin }: { onLogin: (s: Session) => void }) {
  const [token, setToken] = useState('');
  const [namespace, setNamespace] = useState('');
  return html`
    <form
      class="login"
      onSubmit=${(e: Event) => {
        e.preventDefault();
        if (token.trim()) onLogin({ token: token.trim(), namespace: namespace.trim() });
      }}
    >
      <h1>skiff</h1>
      <p>Sign in with a bearer token. <code>skiff dashboard</code> prints a login link; <code>kubectl create token NAME</code> makes one for any service account.</p>
      <label>Token <textarea name="token" rows="4" value=${token} onInput=${(e: Event) => setToken((e.target as HTMLTextAreaElement).value)}></textarea></label>
      <label>Namespace (optional) <input name="namespace" value=${namespace} onInput=${(e: Event) => setNamespace((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Sign in</button>
    </form>
  `;
}
