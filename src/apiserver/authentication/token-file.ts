import type { IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Authenticated, Authenticator } from './authenticator.js';
import { bearerToken, type TokenAuthenticator } from './bearer-token.js';
import type { UserInfo } from './user-info.js';

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/** Splits one CSV line (quoted fields may hold commas and doubled quotes). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cur += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}

/**
 * Upstream's --token-auth-file: CSV lines `token,user,uid[,"group1,group2"]`;
 * blank lines and lines starting with # are skipped.
 */
export function parseTokenFile(text: string, path = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const f = csvFields(line);
    if (f.length < 3) throw new TokenFileError(`${path}: line ${i + 1}: expected token,user,uid[,groups], got ${f.length} fields`);
    const [token, name, uid, groups = ''] = f.map((x) => x.trim());
    if (!token || !name) throw new TokenFileError(`${path}: line ${i + 1}: token and user must not be empty`);
    if (tokens.has(token)) throw new TokenFileError(`${path}: line ${i + 1}: duplicate token`);
    tokens.set(token, { name, uid, groups: groups.split(',').map((g) => g.trim()).filter(Boolean) });
  });
  return tokens;
}

/** Static bearer tokens from a file read at start. */
export class TokenFileAuthenticator implements Authenticator, TokenAuthenticator {
  readonly name = 'tokenfile';

  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  static fromFile(path: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(readFileSync(path, 'utf8'), path));
  }

  async authenticate(req: IncomingMessage): Promise<Authenticated | undefined> {
    const token = bearerToken(req);
    return token === undefined ? undefined : this.authenticateToken(token);
  }

  async authenticateToken(token: string): Promise<Authenticated | undefined> {
    const user = this.tokens.get(token);
    return user ? { user: { ...user, groups: [...user.groups] } } : undefined;
  }
}
