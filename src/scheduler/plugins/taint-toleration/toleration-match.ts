import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';

/** core/v1 Toleration.ToleratesTaint: empty key with Exists tolerates everything. */
export function toleratesTaint(t: Toleration, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== 'Exists') return false;
  switch (t.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: Toleration[] | undefined, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}
