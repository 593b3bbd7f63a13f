import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { ApiError } from '../../machinery/api-error.js';
import { AnonymousAuthenticator } from './anonymous.js';
import { AuthenticationError, AuthenticatorChain, type Authenticator } from './authenticator.js';
import { X509Authenticator } from './x509.js';

const req = (socket: object = {}) => ({ socket, headers: {} }) as unknown as IncomingMessage;

function fixed(name: string, result: 'none' | 'invalid' | string): Authenticator {
  return {
    name,
    async authenticate() {
      if (result === 'none') return undefined;
      if (result === 'invalid') throw new AuthenticationError('bad token');
      return { user: { name: result, groups: ['team'] } };
    },
  };
}

describe('AuthenticatorChain', () => {
  it('the first authenticator that recognises the request wins, and the user is system:authenticated', async () => {
    const chain = new AuthenticatorChain([fixed('a', 'none'), fixed('b', 'jane'), fixed('c', 'joe')]);
    const { user } = await chain.authenticate(req(), '/api');
    assert.deepEqual(user, { name: 'jane', groups: ['team', 'system:authenticated'] });
  });

  it('invalid credentials of one kind let the next authenticator try', async () => {
    const chain = new AuthenticatorChain([fixed('a', 'invalid'), fixed('b', 'jane')]);
    assert.equal((await chain.authenticate(req(), '/api')).user.name, 'jane');
  });

  it('nobody recognising the request is a 401', async () => {
    const chain = new AuthenticatorChain([fixed('a', 'invalid'), fixed('b', 'none')]);
    await assert.rejects(chain.authenticate(req(), '/api'), (err: unknown) => ApiError.is(err, 'Unauthorized') && err.code === 401);
  });

  it('anonymous is recognised on the public paths only and stays unauthenticated', async () => {
    const chain = new AuthenticatorChain([new AnonymousAuthenticator(['/healthz'])]);
    assert.deepEqual((await chain.authenticate(req(), '/healthz')).user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
    await assert.rejects(chain.authenticate(req(), '/api/v1/pods'), (err: unknown) => ApiError.is(err, 'Unauthorized'));
  });
});

describe('X509Authenticator', () => {
  const x509 = new X509Authenticator();
  const socket = (authorized: boolean, subject: object) => ({ authorized, getPeerCertificate: () => ({ subject }) });

  it('takes the user from the common name and the groups from the organizations', async () => {
    const result = await x509.authenticate(req(socket(true, { CN: 'jane', O: ['dev', 'ops'] })));
    assert.deepEqual(result, { user: { name: 'jane', groups: ['dev', 'ops'] } });
    const single = await x509.authenticate(req(socket(true, { CN: 'joe', O: 'dev' })));
    assert.deepEqual(single?.user.groups, ['dev']);
  });

  it('ignores a certificate the TLS layer did not verify, and requests without one', async () => {
    assert.equal(await x509.authenticate(req(socket(false, { CN: 'mallory' }))), undefined);
    assert.equal(await x509.authenticate(req({})), undefined);
  });
});
