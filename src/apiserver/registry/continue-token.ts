import { badRequest } from '../../machinery/api-error.js';

/** The opaque `continue` of a paged list: the revision it reads at and the last key returned. */
export interface ContinueToken {
  rv: number;
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start })).toString('base64url');
}

export function decodeContinue(value: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (parsed.v === 'meta.k8s.io/v1' && typeof parsed.rv === 'number' && typeof parsed.start === 'string' && parsed.rv > 0) {
      return { rv: parsed.rv, start: parsed.start };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}
