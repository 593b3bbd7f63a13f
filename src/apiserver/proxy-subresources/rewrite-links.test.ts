import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rewriteHtml, rewriteUrl, type LinkRewriter } from './rewrite-links.js';
import { isProxyableIP, splitSchemeNamePort } from './proxy-location.js';
import { splitProxyPath } from './resource-proxy.js';
import { parseRequestInfo } from '../request-info.js';

const r: LinkRewriter = { pathPrepend: '/api/v1/namespaces/default/services/web/proxy', backendHost: '10.42.0.5:8080', requestHost: 'localhost:8001' };

describe('rewriteUrl (upstream proxy Transport.rewriteURL)', () => {
  const cases: [string, string][] = [
    ['/static/app.js', '/api/v1/namespaces/default/services/web/proxy/static/app.js'],
    ['/dir/', '/api/v1/namespaces/default/services/web/proxy/dir/'],
    ['/', '/api/v1/namespaces/default/services/web/proxy/'],
    ['/a?x=1&y=2#top', '/api/v1/namespaces/default/services/web/proxy/a?x=1&y=2#top'],
    // already through the proxy
    ['/api/v1/namespaces/default/services/web/proxy/x', '/api/v1/namespaces/default/services/web/proxy/x'],
    // relative links and other hosts stay
    ['static/app.js', 'static/app.js'],
    ['../up', '../up'],
    ['https://example.com/x', 'https://example.com/x'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    // the backend's own host loses scheme and host; the host the client used keeps them
    ['http://10.42.0.5:8080/login', '/api/v1/namespaces/default/services/web/proxy/login'],
    ['http://localhost:8001/login', 'http://localhost:8001/api/v1/namespaces/default/services/web/proxy/login'],
  ];
  for (const [input, want] of cases) it(`${input} → ${want}`, () => assert.equal(rewriteUrl(input, r), want));
});

describe('rewriteHtml', () => {
  const rw = (html: string) => rewriteHtml(html, (u) => rewriteUrl(u, r));
  it('rewrites URL attributes of the listed tags only, byte for byte elsewhere', () => {
    const html = '<!DOCTYPE html><html><head><link rel="stylesheet" href="/s.css"><script src=\'/a.js\'></script></head>' +
      '<body><a class=x href=/next>n</a><div href="/not-a-link">d</div><img alt="" src="/i.png"/><!-- <a href="/c"> --></body></html>';
    const p = '/api/v1/namespaces/default/services/web/proxy';
    assert.equal(
      rw(html),
      `<!DOCTYPE html><html><head><link rel="stylesheet" href="${p}/s.css"><script src='${p}/a.js'></script></head>` +
        `<body><a class=x href="${p}/next">n</a><div href="/not-a-link">d</div><img alt="" src="${p}/i.png"/><!-- <a href="/c"> --></body></html>`,
    );
  });
  it('leaves script text alone', () => {
    const html = '<script>if (a<b) document.write("<a href=\\"/x\\">")</script><a href="/y">';
    assert.equal(rw(html), '<script>if (a<b) document.write("<a href=\\"/x\\">")</script><a href="/api/v1/namespaces/default/services/web/proxy/y">');
  });
  it('copes with unterminated markup', () => {
    assert.equal(rw('<a href="/x"'), '<a href="/api/v1/namespaces/default/services/web/proxy/x"');
    assert.equal(rw('text < more'), 'text < more');
    assert.equal(rw('<!-- open'), '<!-- open');
  });
});

describe('proxy ids and addresses', () => {
  it('splits name, name:port and scheme:name:port as upstream', () => {
    assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
    assert.deepEqual(splitSchemeNamePort('web:http'), { scheme: '', name: 'web', port: 'http' });
    assert.deepEqual(splitSchemeNamePort('https:web:443'), { scheme: 'https', name: 'web', port: '443' });
    assert.deepEqual(splitSchemeNamePort('http:web:'), { scheme: 'http', name: 'web', port: '' });
    assert.equal(splitSchemeNamePort('ftp:web:21'), undefined);
    assert.equal(splitSchemeNamePort(':80'), undefined);
    assert.equal(splitSchemeNamePort('a:b:c:d'), undefined);
  });
  it('refuses loopback, link-local, multicast and unspecified addresses', () => {
    for (const ip of ['127.0.0.1', '0.0.0.0', '169.254.169.254', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '', 'web']) {
      assert.equal(isProxyableIP(ip), false, ip);
    }
    for (const ip of ['10.42.0.5', '192.168.1.2', '8.8.8.8', '2001:db8::1', 'fd00::1']) assert.equal(isProxyableIP(ip), true, ip);
  });
  it('splits the request path at the proxy segment', () => {
    const info = (p: string) => parseRequestInfo('GET', p.replace(/\/+$/, ''), new URLSearchParams());
    const svc = '/api/v1/namespaces/default/services/web:http/proxy';
    assert.deepEqual(splitProxyPath(svc, info(svc)), { prefix: svc, path: '' });
    assert.deepEqual(splitProxyPath(`${svc}/`, info(`${svc}/`)), { prefix: svc, path: '/' });
    assert.deepEqual(splitProxyPath(`${svc}/a//b/`, info(`${svc}/a//b/`)), { prefix: svc, path: '/a/b/' });
    const node = '/api/v1/nodes/n1/proxy';
    assert.deepEqual(splitProxyPath(`${node}/metrics`, info(`${node}/metrics`)), { prefix: node, path: '/metrics' });
    const i = info(`${svc}/x/y`);
    assert.equal(i.subresource, 'proxy');
    assert.equal(i.name, 'web:http');
  });
});
