import { ATTR } from '../../trace/attributes.js';
import { stage } from '../trace/request-span.js';
import { isMutating, isValidating, type Admission, type AdmissionAttributes, type AdmissionPlugin, type MutatingAdmission, type ValidatingAdmission } from './admission.js';

/**
 * The two admission chains (mutating, then validating) over one ordered list
 * of plugins; a plugin may be in both. Each runs only for the operations it
 * handles; the first rejection ends the request.
 */
export class AdmissionChain implements Admission {
  readonly mutating: readonly MutatingAdmission[];
  readonly validating: readonly ValidatingAdmission[];

  constructor(plugins: readonly AdmissionPlugin[]) {
    this.mutating = plugins.filter(isMutating);
    this.validating = plugins.filter(isValidating);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.mutating) {
      if (plugin.handles(attrs.operation)) await stage(`admission ${plugin.name}`, 'admission', () => plugin.admit(attrs), { [ATTR.plugin]: plugin.name, 'skiff.admission.phase': 'mutating' });
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.validating) {
      if (plugin.handles(attrs.operation)) await stage(`admission ${plugin.name}`, 'admission', () => plugin.validate(attrs), { [ATTR.plugin]: plugin.name, 'skiff.admission.phase': 'validating' });
    }
  }
}

/** Admits everything: for internal writes (bootstrap) and tests. */
export const NO_ADMISSION: Admission = {
  admit: async () => {},
  validate: async () => {},
};
