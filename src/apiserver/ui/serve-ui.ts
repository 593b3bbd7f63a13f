import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build:web` (run by `npm install`'s prepare step) writes the dashboard. */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

export const UI_PREFIX = '/ui';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>skiff dashboard</title>
<p>The dashboard is not built in this installation. Run <code>npm run build:web</code> (npm install does it) and reload.</p>\n`;

export function isUiPath(path: string): boolean {
  return path === UI_PREFIX || path.startsWith(`${UI_PREFIX}/`);
}

/**
 * Serves the dashboard's static files under /ui/. They hold no cluster data:
 * the page asks for a token and every API call it makes is authenticated and
 * authorized as that user, exactly like kubectl's, so the files themselves
 * are served before authentication (as a login page is).
 * Paths without a file extension fall back to index.html (client-side routes).
 */
export async function serveUi(req: IncomingMessage, res: ServerResponse, path: string, root = DEFAULT_UI_DIR): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('method not allowed\n');
    return;
  }
  if (path === UI_PREFIX) {
    res.writeHead(301, { Location: `${UI_PREFIX}/` });
    res.end();
    return;
  }
  let relative: string;
  try {
    relative = decodeURIComponent(path.slice(UI_PREFIX.length + 1));
  } catch {
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('malformed path\n');
    return;
  }
  const file = normalize(join(root, relative));
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || relative.includes('\0')) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
    return;
  }
  const target = (await isFile(file)) ? file : extname(relative) === '' ? join(root, 'index.html') : undefined;
  if (!target || !(await isFile(target))) {
    const built = await isFile(join(root, 'index.html'));
    res.writeHead(built ? 404 : 503, { 'Content-Type': built ? 'text/plain; charset=utf-8' : 'text/html; charset=utf-8' });
    res.end(built ? 'not found\n' : NOT_BUILT);
    return;
  }
  const hashed = target.includes(`${sep}assets${sep}`);
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream',
    'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(target).on('error', () => res.destroy()).pipe(res);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
