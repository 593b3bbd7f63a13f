import { isIP } from 'node:net';
import { invalid, type ErrorList } from './errors.js';

export function validateIP(value: string, path: string): ErrorList {
  return isIP(value) ? [] : [invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

export function validateIPv4(value: string, path: string): ErrorList {
  return isIP(value) === 4 ? [] : [invalid(path, value, 'must be a valid IPv4 address')];
}

export function validateIPv6(value: string, path: string): ErrorList {
  return isIP(value) === 6 ? [] : [invalid(path, value, 'must be a valid IPv6 address')];
}

/** Upstream's ValidateNonSpecialIP: endpoints may not point at unspecified, loopback or link-local addresses. */
export function validateNonSpecialIP(value: string, path: string): ErrorList {
  const v = value.toLowerCase();
  if (v === '0.0.0.0' || v === '::') return [invalid(path, value, 'may not be unspecified (0.0.0.0, ::)')];
  if (v.startsWith('127.') || v === '::1') return [invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)')];
  if (v.startsWith('169.254.') || v.startsWith('fe80:')) return [invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)')];
  if (v.startsWith('224.0.0.') || v.startsWith('ff02:')) return [invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)')];
  return [];
}
