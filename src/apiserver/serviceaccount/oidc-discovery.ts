import type { ServiceAccountTokens } from './service-account-tokens.js';

/** `/.well-known/openid-configuration` for the service-account issuer, as upstream serves it. */
export function openIdConfiguration(tokens: ServiceAccountTokens): Record<string, unknown> {
  return {
    issuer: tokens.issuer,
    jwks_uri: `${tokens.issuer.replace(/\/+$/, '')}/openid/v1/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  };
}

/** `/openid/v1/jwks`: the public key tokens are verified with. */
export function jwks(tokens: ServiceAccountTokens): Record<string, unknown> {
  const jwk = tokens.publicKey.export({ format: 'jwk' });
  return { keys: [{ use: 'sig', kty: jwk.kty, kid: tokens.keyId, alg: 'RS256', n: jwk.n, e: jwk.e }] };
}
