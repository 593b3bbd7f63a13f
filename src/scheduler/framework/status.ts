/** Outcome codes of an extension point, as upstream's framework.Code. */
export enum Code {
  Success = 0,
  Error = 1,
  /** The pod does not fit now; preemption or cluster changes may help. */
  Unschedulable = 2,
  /** The pod does not fit and preempting pods on the node cannot help. */
  UnschedulableAndUnresolvable = 3,
  /** Permit: hold the pod until allowed or timed out. */
  Wait = 4,
  /** PreFilter/PreScore/Bind: this plugin has nothing to do for the pod. */
  Skip = 5,
}

const CODE_NAMES: Record<Code, string> = {
  [Code.Success]: 'Success',
  [Code.Error]: 'Error',
  [Code.Unschedulable]: 'Unschedulable',
  [Code.UnschedulableAndUnresolvable]: 'UnschedulableAndUnresolvable',
  [Code.Wait]: 'Wait',
  [Code.Skip]: 'Skip',
};

/**
 * What a plugin says about a pod: a code plus human reasons. Rejections are
 * values, never exceptions; only `Error` means something went wrong.
 */
export class Status {
  /** The plugin that produced the status (set by the framework). */
  plugin = '';

  constructor(
    readonly code: Code = Code.Success,
    readonly reasons: readonly string[] = [],
    /** The underlying failure for Code.Error. */
    readonly cause?: unknown,
  ) {}

  static success(): Status {
    return SUCCESS;
  }

  static unschedulable(...reasons: string[]): Status {
    return new Status(Code.Unschedulable, reasons);
  }

  static unresolvable(...reasons: string[]): Status {
    return new Status(Code.UnschedulableAndUnresolvable, reasons);
  }

  static error(cause: unknown): Status {
    return new Status(Code.Error, [cause instanceof Error ? cause.message : String(cause)], cause);
  }

  static skip(): Status {
    return SKIP;
  }

  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  isSkip(): boolean {
    return this.code === Code.Skip;
  }

  /** Unschedulable or UnschedulableAndUnresolvable. */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable;
  }

  message(): string {
    return this.reasons.join(', ');
  }

  withPlugin(plugin: string): Status {
    if (this === SUCCESS || this === SKIP) return this;
    this.plugin ||= plugin;
    return this;
  }

  toString(): string {
    return `${CODE_NAMES[this.code]}${this.reasons.length ? `: ${this.message()}` : ''}`;
  }
}

const SUCCESS = Object.freeze(new Status(Code.Success)) as Status;
const SKIP = Object.freeze(new Status(Code.Skip)) as Status;

/** Success when undefined: lets plugins return nothing for "fine". */
export function isSuccess(s: Status | undefined): boolean {
  return !s || s.code === Code.Success;
}
