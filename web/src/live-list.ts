import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, apiGet, watch, type KubeObject, type ObjectList } from './api.js';

export interface LiveList<T> {
  items: T[];
  /** Set while the list cannot be shown (403, network); the message the API server gave. */
  error?: string;
  loaded: boolean;
}

const RETRY_MS = 2000;

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/**
 * A collection kept current the way an informer does it: list, then watch
 * from the list's resourceVersion; relist when the watch ends or expires.
 */
export function useLiveList<T extends KubeObject>(path: string | undefined): LiveList<T> {
  const [state, setState] = useState<LiveList<T>>({ items: [], loaded: false });
  useEffect(() => {
    if (!path) return undefined;
    const abort = new AbortController();
    const signal = abort.signal;
    setState({ items: [], loaded: false });
    const run = async (): Promise<void> => {
      while (!signal.aborted) {
        try {
          const list = await apiGet<ObjectList<T>>(path, signal);
          const items = new Map(list.items.map((o) => [keyOf(o), o]));
          const publish = () => setState({ items: [...items.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b))), loaded: true });
          publish();
          let rv = list.metadata.resourceVersion ?? '';
          for await (const event of watch<T>(path, rv, signal)) {
            if (event.type === 'ERROR') break; // expired: relist
            rv = event.object.metadata.resourceVersion ?? rv;
            if (event.type === 'BOOKMARK') continue;
            if (event.type === 'DELETED') items.delete(keyOf(event.object));
            else items.set(keyOf(event.object), event.object);
            publish();
          }
        } catch (err) {
          if (signal.aborted) return;
          const message = err instanceof ApiFailure ? err.message : String(err);
          setState({ items: [], loaded: true, error: message });
          await sleep(RETRY_MS * (err instanceof ApiFailure && err.code === 403 ? 5 : 1), signal);
        }
      }
    };
    void run();
    return () => abort.abort();
  }, [path]);
  return state;
}
