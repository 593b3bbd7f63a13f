import { Requirement, type Labels } from './requirement.js';

/** A parsed label selector: a conjunction of requirements. */
export interface Selector {
  matches(labels: Labels): boolean;
  /** True when the selector has no requirements (and so matches everything). */
  empty(): boolean;
  requirements(): readonly Requirement[];
  /** The value a `key=value` / `key==value` / `key in (value)` term demands, if any. */
  requiresExactMatch(key: string): string | undefined;
  toString(): string;
}

/** Requirements ANDed together, kept sorted by key as upstream does. */
class RequirementsSelector implements Selector {
  private readonly items: readonly Requirement[];

  constructor(items: readonly Requirement[]) {
    // Stable sort by key, so the string form is deterministic.
    this.items = [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  matches(labels: Labels): boolean {
    return this.items.every((r) => r.matches(labels));
  }

  empty(): boolean {
    return this.items.length === 0;
  }

  requirements(): readonly Requirement[] {
    return this.items;
  }

  requiresExactMatch(key: string): string | undefined {
    for (const r of this.items) {
      if (r.key !== key) continue;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    }
    return undefined;
  }

  toString(): string {
    return this.items.map((r) => r.toString()).join(',');
  }
}

/** Matches no object at all: what a null metav1.LabelSelector means. */
class NothingSelector implements Selector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  requirements(): readonly Requirement[] {
    return [];
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
  toString(): string {
    return '';
  }
}

const EVERYTHING: Selector = new RequirementsSelector([]);
const NOTHING: Selector = new NothingSelector();

/** The selector that matches every object (an empty selector). */
export function everything(): Selector {
  return EVERYTHING;
}

/** The selector that matches no object. */
export function nothing(): Selector {
  return NOTHING;
}

export function selectorFromRequirements(requirements: readonly Requirement[]): Selector {
  return requirements.length === 0 ? EVERYTHING : new RequirementsSelector(requirements);
}

/** `key=value` for every entry of a label set, validated (labels.ValidatedSelectorFromSet). */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined): Selector {
  const entries = Object.entries(set ?? {});
  return selectorFromRequirements(entries.map(([k, v]) => Requirement.create(k, '=', [v])));
}
