import type { Environment } from '@marcbachmann/cel-js';
import { Optional } from '@marcbachmann/cel-js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../api/validation/name.js';
import { parseRequestURI } from './urls.js';

type Validator = (s: string) => string[];

/** A named format; `validate` returns its errors (optional.none() when valid). */
export class Format {
  constructor(
    readonly name: string,
    readonly check: Validator,
  ) {}
}

/** The receiver of `format.<name>()`: a constant named `format`. */
export class Formats {}

const prefix = (v: Validator): Validator => (s) => v(s.endsWith('-') ? s.slice(0, -1) : s);
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const match = (re: RegExp, msg: string): Validator => (s) => (re.test(s) ? [] : [msg]);

const FORMATS: Record<string, Validator> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: prefix(isDNS1123Label),
  dns1123SubdomainPrefix: prefix(isDNS1123Subdomain),
  dns1035LabelPrefix: prefix(isDNS1035Label),
  labelValue: isValidLabelValue,
  uri: (s) => (parseRequestURI(s) ? [] : ['invalid URI']),
  uuid: match(UUID, 'does not match the UUID format'),
  byte: (s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid datetime']),
};

/**
 * Kubernetes' format library (library/format.go): `format.named(name)`,
 * `format.<name>()` and `Format.validate(s)`, which is optional.none()
 * for a valid string and the list of errors otherwise.
 */
export function registerFormat(env: Environment): void {
  env.registerType('Formats', Formats).registerType('Format', Format).registerConstant('format', 'Formats', new Formats());
  for (const [name, check] of Object.entries(FORMATS)) {
    const f = new Format(name, check);
    env.registerFunction(`Formats.${name}(): Format`, () => f);
  }
  env
    .registerFunction('Formats.named(string): optional<Format>', (_: Formats, name: string) => {
      const check = FORMATS[name];
      return check ? Optional.of(new Format(name, check)) : Optional.none();
    })
    .registerFunction('Format.validate(string): optional<list<string>>', (f: Format, s: string) => {
      const errs = f.check(s);
      return errs.length ? Optional.of(errs) : Optional.none();
    });
}
