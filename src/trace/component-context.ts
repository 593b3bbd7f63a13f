import { context, createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';

const COMPONENT = createContextKey('skiff.component');

/**
 * Runs `fn` (and everything it starts asynchronously) as a component:
 * spans started there are that component's (service.name), whatever
 * process it shares. The context starts empty: no span leaks in.
 */
export function runAsComponent<T>(component: string, fn: () => T): T {
  return context.with(ROOT_CONTEXT.setValue(COMPONENT, component), fn);
}

/** The component the current code runs as (`skiff` when none was set). */
export function currentComponent(ctx: Context = context.active()): string {
  return (ctx.getValue(COMPONENT) as string | undefined) ?? 'skiff';
}

/**
 * The current component's context without any span: for long-lived loops
 * started while handling one event, which must not make every later
 * iteration a child of that event.
 */
export function detachedContext(ctx: Context = context.active()): Context {
  return componentContext(currentComponent(ctx));
}

/** Runs `fn` in the current component's context without any span. */
export function runDetached<T>(fn: () => T): T {
  return context.with(detachedContext(), fn);
}

/** A fresh context of the named component, without any span. */
export function componentContext(component: string): Context {
  // contexts are immutable: one per component serves every caller (each setValue copies a map)
  let ctx = componentContexts.get(component);
  if (!ctx) componentContexts.set(component, (ctx = ROOT_CONTEXT.setValue(COMPONENT, component)));
  return ctx;
}

const componentContexts = new Map<string, Context>();
