import { X509Certificate } from 'node:crypto';

/** When, in ms since the epoch, a certificate valid from `notBefore` to `notAfter` should be renewed: at a jittered 70–90% of its life, as upstream's certificate manager. */
export function rotationDeadline(notBefore: number, notAfter: number, random: () => number = Math.random): number {
  const total = notAfter - notBefore;
  return notBefore + total * (0.7 + 0.2 * random());
}

/** A PEM certificate's validity and serial (the first certificate of a chain). */
export interface CertificateInfo {
  notBefore: number;
  notAfter: number;
  serial: string;
  subject: string;
}

export function certificateInfo(pem: string | Buffer): CertificateInfo {
  const cert = new X509Certificate(pem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo), serial: cert.serialNumber, subject: cert.subject };
}
