import type { Attributes } from '@opentelemetry/api';
import { ATTR } from '../../trace/attributes.js';
import { isMutating, isValidating, type Admission, type AdmissionAttributes, type AdmissionPlugin, type MutatingAdmission, type ValidatingAdmission } from './admission.js';

/**
 * The two admission chains (mutating, then validating) over one ordered list
 * of plugins; a plugin may be in both. Each runs only for the operations it
 * handles; the first rejection ends the request.
 */
export class AdmissionChain implements Admission {
  readonly mutating: readonly MutatingAdmission[];
  readonly validating: readonly ValidatingAdmission[];
  /** Each plugin's stage name and attributes for a recorded request, made once. */
  private readonly stages = new Map<AdmissionPlugin, { name: string; mutating: Attributes; validating: Attributes }>();

  constructor(plugins: readonly AdmissionPlugin[]) {
    this.mutating = plugins.filter(isMutating);
    this.validating = plugins.filter(isValidating);
    for (const p of plugins) {
      const of = (phase: string) => Object.freeze({ [ATTR.plugin]: p.name, 'skiff.admission.phase': phase });
      this.stages.set(p, { name: `admission ${p.name}`, mutating: of('mutating'), validating: of('validating') });
    }
  }

  // a recorded request's plugins are timed inline (no closure and no extra async frame per plugin)
  async admit(attrs: AdmissionAttributes): Promise<void> {
    const trace = attrs.trace;
    for (const plugin of this.mutating) {
      if (!plugin.handles(attrs.operation)) continue;
      if (!trace) {
        await plugin.admit(attrs);
        continue;
      }
      const stage = this.stages.get(plugin)!;
      const start = performance.now();
      try {
        await plugin.admit(attrs);
      } catch (err) {
        trace.record(stage.name, 'admission', start, stage.mutating, err ?? 'failed');
        throw err;
      }
      trace.record(stage.name, 'admission', start, stage.mutating);
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const trace = attrs.trace;
    for (const plugin of this.validating) {
      if (!plugin.handles(attrs.operation)) continue;
      if (!trace) {
        await plugin.validate(attrs);
        continue;
      }
      const stage = this.stages.get(plugin)!;
      const start = performance.now();
      try {
        await plugin.validate(attrs);
      } catch (err) {
        trace.record(stage.name, 'admission', start, stage.validating, err ?? 'failed');
        throw err;
      }
      trace.record(stage.name, 'admission', start, stage.validating);
    }
  }
}

/** Admits everything: for internal writes (bootstrap) and tests. */
export const NO_ADMISSION: Admission = {
  admit: async () => {},
  validate: async () => {},
};
