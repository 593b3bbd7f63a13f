import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileCel } from '../cel-program.js';

const run = (expr: string, self: unknown = {}) => compileCel(expr, { self: 'dyn' }).evaluate({ self });

describe('Kubernetes CEL libraries', () => {
  it('lists: isSorted, sum, min, max, indexOf, lastIndexOf', () => {
    assert.equal(run('[1, 2, 2, 5].isSorted()'), true);
    assert.equal(run("['b', 'a'].isSorted()"), false);
    assert.equal(run('[1, 2, 3].sum()'), 6n);
    assert.equal(run('[1.5, 2.5].sum()'), 4);
    assert.equal(run('[].sum()'), 0n);
    assert.equal(run('[3, 1, 2].min()'), 1n);
    assert.equal(run("['a', 'c', 'b'].max()"), 'c');
    assert.equal(run('[1, 2, 1].indexOf(1)'), 0n);
    assert.equal(run('[1, 2, 1].lastIndexOf(1)'), 2n);
    assert.equal(run('[1, 2].indexOf(7)'), -1n);
    assert.equal(run('self.xs.sum() == 10', { xs: [1n, 2n, 3n, 4n] }), true);
    assert.throws(() => run('[].min()'), /must not be empty/);
  });

  it('regex: find and findAll', () => {
    assert.equal(run("'abc 123'.find('[0-9]+')"), '123');
    assert.equal(run("'abc'.find('[0-9]+')"), '');
    assert.deepEqual(run("'a1b2c3'.findAll('[0-9]')"), ['1', '2', '3']);
    assert.deepEqual(run("'a1b2c3'.findAll('[0-9]', 2)"), ['1', '2']);
    assert.equal(run("'abc'.matches('^a.c$')"), true);
  });

  it('urls: url(), isURL() and the getters', () => {
    assert.equal(run("isURL('https://example.com:8443/a/b?x=1')"), true);
    assert.equal(run("isURL('/absolute/path')"), true);
    assert.equal(run("isURL('not a url')"), false);
    assert.equal(run("url('https://user@example.com:8443/a%20b?x=1').getScheme()"), 'https');
    assert.equal(run("url('https://example.com:8443/a').getHost()"), 'example.com:8443');
    assert.equal(run("url('https://[::1]:80/').getHostname()"), '::1');
    assert.equal(run("url('https://example.com:8443/a').getPort()"), '8443');
    assert.equal(run("url('https://example.com/a%20b').getEscapedPath()"), '/a%20b');
    assert.equal(run("url('https://example.com').getEscapedPath()"), '');
    assert.deepEqual(run("url('https://e.com/?k=a&k=b').getQuery()['k']"), ['a', 'b']);
    assert.throws(() => run("url('bad url')"), /URL parse error/);
  });

  it('quantity: parsing, comparison and arithmetic', () => {
    assert.equal(run("quantity('1Gi').isGreaterThan(quantity('1G'))"), true);
    assert.equal(run("quantity('500m').isLessThan(quantity('1'))"), true);
    assert.equal(run("quantity('1') == quantity('1000m')"), true);
    assert.equal(run("quantity('1.5').isInteger()"), false);
    assert.equal(run("quantity('2k').asInteger()"), 2000n);
    assert.equal(run("quantity('1.5').asApproximateFloat()"), 1.5);
    assert.equal(run("quantity('1').add(quantity('500m')).compareTo(quantity('1500m'))"), 0n);
    assert.equal(run("quantity('1').sub(2).sign()"), -1n);
    assert.equal(run("isQuantity('12Mi')"), true);
    assert.equal(run("isQuantity('12 Mi')"), false);
  });

  it('ip and cidr', () => {
    assert.equal(run("isIP('10.0.0.1')"), true);
    assert.equal(run("isIP('010.0.0.1')"), false);
    assert.equal(run("isIP('::ffff:1.2.3.4')"), false);
    assert.equal(run("ip('fe80::1').isLinkLocalUnicast()"), true);
    assert.equal(run("ip('127.0.0.1').isLoopback()"), true);
    assert.equal(run("ip('8.8.8.8').isGlobalUnicast()"), true);
    assert.equal(run("ip('2001:db8::1').family()"), 6n);
    assert.equal(run("string(ip('2001:0db8:0:0:0:0:0:1'))"), '2001:db8::1');
    assert.equal(run("cidr('10.0.0.0/8').containsIP('10.1.2.3')"), true);
    assert.equal(run("cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))"), false);
    assert.equal(run("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')"), true);
    assert.equal(run("cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')"), true);
    assert.equal(run("cidr('192.168.0.0/24').prefixLength()"), 24n);
    assert.equal(run("isCIDR('10.0.0.0/33')"), false);
  });

  it('format: named formats validate strings', () => {
    assert.equal(run("!format.dns1123Label().validate('my-name').hasValue()"), true);
    assert.equal(run("format.dns1123Label().validate('My_Name').hasValue()"), true);
    assert.equal(run("format.named('uuid').value().validate('not-a-uuid').hasValue()"), true);
    assert.equal(run("format.named('nope').hasValue()"), false);
  });

  it('strings extension', () => {
    assert.equal(run("'hello'.charAt(1)"), 'e');
    assert.equal(run("'a-b-c'.replace('-', '+')"), 'a+b+c');
    assert.equal(run("'a-b-c'.replace('-', '+', 1)"), 'a+b-c');
    assert.equal(run("'abc'.reverse()"), 'cba');
    assert.equal(run("strings.quote('a\"b')"), '"a\\"b"');
    assert.equal(run("'HeLLo'.lowerAscii()"), 'hello');
    assert.deepEqual(run("'a,b'.split(',')"), ['a', 'b']);
    assert.equal(run("['a', 'b'].join('-')"), 'a-b');
  });
});
