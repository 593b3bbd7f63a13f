import { posix } from 'node:path';

/** Which attributes of which tags hold URLs (upstream's table, from the HTML 4 and 5 attribute indexes). */
const URL_ATTRIBUTES: Record<string, readonly string[]> = {
  a: ['href'],
  applet: ['codebase'],
  area: ['href'],
  audio: ['src'],
  base: ['href'],
  blockquote: ['cite'],
  body: ['background'],
  button: ['formaction'],
  command: ['icon'],
  del: ['cite'],
  embed: ['src'],
  form: ['action'],
  frame: ['longdesc', 'src'],
  head: ['profile'],
  html: ['manifest'],
  iframe: ['longdesc', 'src'],
  img: ['longdesc', 'src', 'usemap'],
  input: ['src', 'usemap', 'formaction'],
  ins: ['cite'],
  link: ['href'],
  object: ['classid', 'codebase', 'data', 'usemap'],
  q: ['cite'],
  script: ['src'],
  source: ['src'],
  video: ['poster', 'src'],
};

/** Elements whose content is raw text: no tags inside to rewrite. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

/**
 * How a proxied page's links are made to go back through the proxy
 * (upstream's proxy Transport): absolute paths on the backend's host, or on
 * the host the client asked for, get the proxy path in front; links to other
 * hosts and relative links stay as they are.
 */
export interface LinkRewriter {
  /** The proxy path, e.g. /api/v1/namespaces/default/services/web/proxy. */
  pathPrepend: string;
  /** host:port the API server dialled. */
  backendHost: string;
  /** The Host header the client sent. */
  requestHost: string;
}

const URL_PARTS = /^([a-zA-Z][a-zA-Z0-9+.-]*:)?(?:\/\/([^/?#]*))?([^?#]*)(.*)$/s;

/** One URL through the proxy, as upstream's rewriteURL. */
export function rewriteUrl(target: string, r: LinkRewriter): string {
  const m = URL_PARTS.exec(target);
  if (!m) return target;
  let [, scheme = '', host = '', path] = m;
  const rest = m[4];
  const differentHost = host !== '' && host !== r.backendHost && host !== r.requestHost;
  if (differentHost || !path.startsWith('/')) return target;
  // the API server knows neither its external scheme nor host: a link to the requested host keeps them, any other loses them
  if (host !== r.requestHost) {
    scheme = '';
    host = '';
  }
  const authority = host ? `//${host}` : '';
  if (!path.startsWith(r.pathPrepend)) {
    const joined = posix.join(r.pathPrepend, path);
    path = path.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined;
  }
  return `${scheme}${authority}${path}${rest}`;
}

/** Rewrites the URL-valued attributes of an HTML document; everything else is left byte for byte. */
export function rewriteHtml(html: string, rewrite: (url: string) => string): string {
  let out = '';
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    out += html.slice(i, lt);
    i = lt;
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      const stop = end < 0 ? html.length : end + 3;
      out += html.slice(i, stop);
      i = stop;
      continue;
    }
    const name = /^<([a-zA-Z][^\s/>]*)/.exec(html.slice(i, i + 64));
    if (!name) {
      // an end tag, doctype, processing instruction or a stray '<': copied up to its '>'
      const end = html.indexOf('>', i + 1);
      const stop = end < 0 ? html.length : end + 1;
      out += html.slice(i, stop);
      i = stop;
      continue;
    }
    const tag = name[1].toLowerCase();
    const tagEnd = startTag(html, i + name[0].length, URL_ATTRIBUTES[tag] ?? [], rewrite);
    out += html.slice(i, i + name[0].length) + tagEnd.text;
    i = tagEnd.next;
    if (RAW_TEXT.has(tag)) {
      const close = html.toLowerCase().indexOf(`</${tag}`, i);
      const stop = close < 0 ? html.length : close;
      out += html.slice(i, stop);
      i = stop;
    }
  }
  return out + html.slice(i);
}

const ATTRIBUTE = /^(\s*)([^\s=/>]+)(\s*=\s*)?("[^"]*"|'[^']*'|[^\s>]*)?/;

/** The rest of a start tag from `from`, with its URL attributes rewritten; `next` is the index after its '>'. */
function startTag(html: string, from: number, urlAttributes: readonly string[], rewrite: (url: string) => string): { text: string; next: number } {
  let out = '';
  let i = from;
  while (i < html.length) {
    const c = html[i];
    if (c === '>') return { text: `${out}>`, next: i + 1 };
    if (c === '/' || /\s/.test(c)) {
      out += c;
      i++;
      continue;
    }
    const m = ATTRIBUTE.exec(html.slice(i, i + 8192));
    if (!m || m[0].length === 0) {
      out += c;
      i++;
      continue;
    }
    const [all, space, key, equals, rawValue] = m;
    if (equals && rawValue !== undefined && urlAttributes.includes(key.toLowerCase())) {
      const quote = rawValue.startsWith('"') || rawValue.startsWith("'") ? rawValue[0] : '';
      const value = quote ? rawValue.slice(1, -1) : rawValue;
      const q = quote || '"';
      out += `${space}${key}${equals}${q}${rewrite(value)}${q}`;
    } else {
      out += all;
    }
    i += all.length;
  }
  return { text: out, next: i };
}
