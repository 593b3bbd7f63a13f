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
  /** Each plugin's stage attributes for a recorded request, made once. */
  private readonly stageAttributes = new Map<AdmissionPlugin, { mutating: Attributes; validating: Attributes }>();

  constructor(plugins: readonly AdmissionPlugin[]) {
    this.mutating = plugins.filter(isMutating);
    this.validating = plugins.filter(isValidating);
    for (const p of plugins) {
      const of = (phase: string) => Object.freeze({ [ATTR.plugin]: p.name, 'skiff.admission.phase': phase });
      this.stageAttributes.set(p, { mutating: of('mutating'), validating: of('validating') });
    }
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const trace = attrs.trace;
    for (const plugin of this.mutating) {
      if (!plugin.handles(attrs.operation)) continue;
      if (trace) await trace.stage(`admission ${plugin.name}`, 'admission', () => plugin.admit(attrs), this.stageAttributes.get(plugin)!.mutating);
      else await plugin.admit(attrs);
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const trace = attrs.trace;
    for (const plugin of this.validating) {
      if (!plugin.handles(attrs.operation)) continue;
      if (trace) await trace.stage(`admission ${plugin.name}`, 'admission', () => plugin.validate(attrs), this.stageAttributes.get(plugin)!.validating);
      else await plugin.validate(attrs);
    }
  }
}

/** Admits everything: for internal writes (bootstrap) and tests. */
export const NO_ADMISSION: Admission = {
  admit: async () => {},
  validate: async () => {},
};
