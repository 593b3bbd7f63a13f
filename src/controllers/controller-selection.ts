import type { ControllerDescriptor } from './controller-descriptor.js';

/** `--controllers` named a controller that does not exist. */
export class UnknownControllerError extends Error {
  override readonly name = 'UnknownControllerError';
  constructor(readonly controller: string) {
    super(`unknown controller ${JSON.stringify(controller)}`);
  }
}

/** Upstream also accepts `<name>-controller` (e.g. `deployment-controller`). */
function canonical(name: string): string {
  return name.endsWith('-controller') ? name.slice(0, -'-controller'.length).replace(/-/g, '') : name;
}

/**
 * Applies kube-controller-manager's `--controllers` list: `*` turns on every
 * controller that is on by default, `foo` turns on foo, `-foo` turns it off.
 * Explicit names win over `*`, whatever the order.
 */
export function selectControllers(all: readonly ControllerDescriptor[], spec: readonly string[]): ControllerDescriptor[] {
  const byName = new Map(all.map((c) => [c.name, c]));
  const on = new Set<string>();
  const off = new Set<string>();
  let star = false;
  for (const raw of spec.map((s) => s.trim()).filter(Boolean)) {
    if (raw === '*') {
      star = true;
      continue;
    }
    const negated = raw.startsWith('-');
    const name = canonical(negated ? raw.slice(1) : raw);
    if (!byName.has(name)) throw new UnknownControllerError(name);
    (negated ? off : on).add(name);
  }
  return all.filter((c) => !off.has(c.name) && (on.has(c.name) || (star && !c.disabledByDefault)));
}
