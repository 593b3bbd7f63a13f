/** RFC 3339 with whole seconds in UTC, as Kubernetes writes metav1.Time. */
export function formatTime(t: Date): string {
  return t.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
