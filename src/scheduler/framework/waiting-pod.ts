import { Code, Status } from './status.js';

/**
 * A pod a Permit plugin asked to wait. Each waiting plugin must allow it;
 * one rejection, or a timeout, rejects it.
 */
export class WaitingPod {
  private readonly pending: Map<string, ReturnType<typeof setTimeout>>;
  private settle!: (s: Status) => void;
  readonly result: Promise<Status>;

  constructor(timeouts: ReadonlyMap<string, number>) {
    this.result = new Promise((resolve) => (this.settle = resolve));
    this.pending = new Map(
      [...timeouts].map(([plugin, ms]) => [plugin, setTimeout(() => this.reject(plugin, `rejected due to timeout after waiting ${ms / 1000}s at plugin ${plugin}`), ms)]),
    );
  }

  pendingPlugins(): string[] {
    return [...this.pending.keys()];
  }

  allow(plugin: string): void {
    const t = this.pending.get(plugin);
    if (t === undefined) return;
    clearTimeout(t);
    this.pending.delete(plugin);
    if (this.pending.size === 0) this.settle(Status.success());
  }

  reject(plugin: string, message: string): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
    this.settle(new Status(Code.Unschedulable, [message]).withPlugin(plugin));
  }
}
