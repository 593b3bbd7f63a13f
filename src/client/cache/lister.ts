import type { ApiObject } from '../rest/api-object.js';
import { NAMESPACE_INDEX, type Indexer } from './indexer.js';

/** Equality on labels (`{ app: 'web' }`), or any predicate on the label map. */
export type LabelMatcher = Readonly<Record<string, string>> | ((labels: Readonly<Record<string, string>>) => boolean);

export function matchesLabels(obj: ApiObject, selector: LabelMatcher | undefined): boolean {
  if (!selector) return true;
  const labels = obj.metadata?.labels ?? {};
  if (typeof selector === 'function') return selector(labels);
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** Read access to one namespace of an informer's cache. Objects are shared and read-only. */
export class NamespaceLister<T extends ApiObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    readonly namespace: string,
  ) {}

  list(selector?: LabelMatcher): T[] {
    return this.indexer.byIndex(NAMESPACE_INDEX, this.namespace).filter((o) => matchesLabels(o, selector));
  }

  get(name: string): T | undefined {
    return this.indexer.getByKey(`${this.namespace}/${name}`);
  }
}

/** Read access to an informer's cache without going to the server. Objects are shared and read-only. */
export class Lister<T extends ApiObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  list(selector?: LabelMatcher): T[] {
    return this.indexer.list().filter((o) => matchesLabels(o, selector));
  }

  /** Cluster-scoped get (key is the bare name). */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  namespace(ns: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, ns);
  }
}
