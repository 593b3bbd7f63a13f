import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokenFile, TokenFileError } from './token-file.js';

test('token file lines: token,user,uid and quoted groups; comments and blanks skipped', () => {
  const tokens = parseTokenFile('# comment\n\nt1,alice,1\nt2,bob,2,"dev,ops"\nt3,"carol, jr",3,admins\n');
  assert.deepEqual(tokens.get('t1'), { name: 'alice', uid: '1', groups: [] });
  assert.deepEqual(tokens.get('t2'), { name: 'bob', uid: '2', groups: ['dev', 'ops'] });
  assert.deepEqual(tokens.get('t3'), { name: 'carol, jr', uid: '3', groups: ['admins'] });
});

test('malformed token files are refused with the line', () => {
  assert.throws(() => parseTokenFile('t1,alice'), (e: unknown) => e instanceof TokenFileError && /line 1/.test(e.message));
  assert.throws(() => parseTokenFile('t1,a,1\nt1,b,2'), /line 2: duplicate token/);
});
