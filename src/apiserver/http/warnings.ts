import type { ServerResponse } from 'node:http';

/**
 * Adds a `Warning: 299 - "<text>"` header (RFC 7234 warn-code 299,
 * "miscellaneous persistent warning"), as upstream's warning recorder does;
 * kubectl prints each as `Warning: <text>`. The same text is added once.
 */
export function addWarning(res: ServerResponse, text: string): void {
  if (res.headersSent) return;
  const existing = res.getHeader('Warning');
  const prior = Array.isArray(existing) ? existing : existing !== undefined ? [String(existing)] : [];
  // header values must be Latin-1: anything else is escaped
  const value = `299 - ${JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`;
  if (prior.includes(value)) return;
  res.setHeader('Warning', [...prior, value]);
}
