import { isIP } from 'node:net';

/**
 * The string formats custom resource schemas check, as kube-openapi's
 * strfmt registry does; formats it does not know are not checked.
 */
const CHECKS: Record<string, (v: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  byte: (v) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: (v) => {
    const [ip, bits, extra] = v.split('/');
    if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
    const family = isIP(ip);
    return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
  },
  mac: (v) => /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i.test(v),
  hostname: (v) => v.length <= 255 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(v),
  email: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
  uri: (v) => URL.canParse(v),
  duration: (v) => /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/.test(v) || v === '0',
};

/** Whether `value` has `format`; unknown formats pass. */
export function matchesFormat(format: string, value: string): boolean {
  const check = CHECKS[format];
  return check ? check(value) : true;
}
