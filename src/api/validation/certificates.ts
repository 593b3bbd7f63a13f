import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import { x509, type Pkcs10CertificateRequest } from '../x509.js';
import { child, duplicate, forbidden, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { isDNS1123Subdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

/** Every key usage a CSR may ask for (upstream's allValidUsages, sorted as its error lists them). */
export const KEY_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

const CONDITION_TYPES_TRUE_ONLY = new Set(['Approved', 'Denied', 'Failed']);

/** The PEM `CERTIFICATE REQUEST` of a CSR's spec.request (base64 in JSON), parsed; throws with upstream's message. */
export function parseCertificateRequest(requestBase64: string | undefined): Pkcs10CertificateRequest {
  const pem = Buffer.from(requestBase64 ?? '', 'base64').toString('latin1');
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!m || m[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  try {
    const lib = x509();
    return new lib.Pkcs10CertificateRequest(lib.PemConverter.decode(m[0])[0]);
  } catch (err) {
    throw new Error(`asn1: structure error: ${(err as Error).message}`);
  }
}

function validateSignerName(signerName: string | undefined, path: string): ErrorList {
  if (!signerName) return [required(path)];
  const parts = signerName.split('/');
  if (parts.length !== 2) return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = parts;
  if (domain.split('.').length < 2) return [invalid(path, domain, 'should be a domain with at least two segments separated by dots')];
  for (const label of [domain, rest]) {
    for (const msg of isDNS1123Subdomain(label)) return [invalid(path, label, `validating label "${label}": ${msg}`)];
  }
  return [];
}

function validateConditions(conditions: readonly CertificateSigningRequestCondition[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  conditions?.forEach((c, i) => {
    const p = index(child(path, 'conditions'), i);
    if (!c.type) errs.push(required(child(p, 'type')));
    if (!c.status) errs.push(required(child(p, 'status')));
    else if (CONDITION_TYPES_TRUE_ONLY.has(c.type) && c.status !== 'True') errs.push(notSupported(child(p, 'status'), c.status, ['True']));
    else if (!['True', 'False', 'Unknown'].includes(c.status)) errs.push(notSupported(child(p, 'status'), c.status, ['False', 'True', 'Unknown']));
    if (c.type && seen.has(c.type)) errs.push(duplicate(child(p, 'type'), c.type));
    if ((c.type === 'Denied' && seen.has('Approved')) || (c.type === 'Approved' && seen.has('Denied'))) {
      errs.push(invalid(child(p, 'type'), c.type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (c.type) seen.add(c.type);
  });
  return errs;
}

function validateCertificate(certificate: string | undefined, path: string): ErrorList {
  if (!certificate) return [];
  const pem = Buffer.from(certificate, 'base64').toString('latin1');
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g)];
  if (blocks.length === 0) return [invalid(path, '<certificate data>', 'must contain at least one CERTIFICATE PEM block')];
  for (const [i, b] of blocks.entries()) {
    if (b[1] !== 'CERTIFICATE') return [invalid(path, '<certificate data>', `only CERTIFICATE PEM blocks are allowed, found "${b[1]}"`)];
    try {
      new (x509().X509Certificate)(b[0]);
    } catch (err) {
      return [invalid(path, '<certificate data>', `failed to parse certificate in PEM block ${i}: ${(err as Error).message}`)];
    }
  }
  return [];
}

/** Upstream's ValidateCertificateSigningRequestCreate, plus the status rules its update paths share. */
export function validateCertificateSigningRequest(csr: CertificateSigningRequest): ErrorList {
  const errs = validateObjectMeta(csr.metadata, false, () => []);
  const spec = csr.spec ?? ({} as CertificateSigningRequest['spec']);
  try {
    parseCertificateRequest(spec.request);
  } catch (err) {
    errs.push(invalid('spec.request', spec.request ?? null, (err as Error).message));
  }
  if (!spec.usages?.length) errs.push(required('spec.usages'));
  const seen = new Set<string>();
  spec.usages?.forEach((u, i) => {
    if (!KEY_USAGES.includes(u)) errs.push(notSupported(index('spec.usages', i), u, KEY_USAGES));
    if (seen.has(u)) errs.push(duplicate(index('spec.usages', i), u));
    seen.add(u);
  });
  errs.push(...validateSignerName(spec.signerName, 'spec.signerName'));
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < 600) {
    errs.push(invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr.status?.conditions, 'status'));
  errs.push(...validateCertificate(csr.status?.certificate, 'status.certificate'));
  return errs;
}

/** Conditions that may not go away, and a certificate that may not change once issued. */
export function validateCertificateSigningRequestUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest): ErrorList {
  const errs: ErrorList = [];
  for (const type of CONDITION_TYPES_TRUE_ONLY) {
    const before = (old.status?.conditions ?? []).filter((c) => c.type === type).length;
    const after = (csr.status?.conditions ?? []).filter((c) => c.type === type).length;
    if (after < before) errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${type}"`));
  }
  const oldCert = old.status?.certificate;
  if (oldCert && csr.status?.certificate !== oldCert) errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  return errs;
}
