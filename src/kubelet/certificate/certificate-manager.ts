import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Client } from '../../client/rest/client.js';
import type { ClientCertificate } from '../../client/rest/rest-config.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import { newNodeCertificateRequest, requestNodeCertificate, writeAtomic } from './node-csr.js';
import { certificateInfo, rotationDeadline, type CertificateInfo } from './rotation-deadline.js';

/** Sends a CSR and waits for its certificate; returns the CSR's name and the PEM certificate. */
export type CertificateRequester = (csrPem: string, signal: AbortSignal) => Promise<{ name: string; certPem: string }>;

export interface CertificateManagerOptions {
  nodeName: string;
  /** The certificate and key in use now. */
  initial: { certPem: string; keyPem: string };
  /** Where each new pair is written (certificate then key, one PEM file), atomically. */
  certPath: string;
  logger: Logger;
  clock?: Clock;
  /** In [0, 1): picks the deadline inside 70–90% of the life. */
  random?: () => number;
  /** Default: requestNodeCertificate through the client given to `run` (waits up to 15 min, as upstream). */
  requester?: CertificateRequester;
}

/** The longest single wait: timers cannot sleep for a year, and a cert swapped on disk is picked up by a restart anyway. */
const MAX_SLEEP_MS = 60 * 60 * 1000;
const RETRY_INITIAL_MS = 2000;
const RETRY_MAX_MS = 5 * 60 * 1000;
/** How long a renewal CSR may wait for approval and signing (upstream's certificateWaitTimeout). */
const CSR_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * The kubelet's client certificate manager (upstream's certificate.Manager):
 * serves the current certificate to the API client, and at a jittered 70–90%
 * of its life sends a CSR for a new one (a fresh key, signer
 * `kube-apiserver-client-kubelet`, approved by the csrapproving controller
 * as a node renewing its own), writes the pair to `certPath` atomically and
 * switches to it; the REST client then closes its connections so they
 * reconnect with the new certificate. Failures are retried with backoff.
 */
export class ClientCertificateManager {
  private pair: ClientCertificate;
  private info: CertificateInfo;
  private deadline: number;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(private readonly o: CertificateManagerOptions) {
    this.clock = o.clock ?? realClock;
    this.random = o.random ?? Math.random;
    this.pair = { cert: o.initial.certPem, key: o.initial.keyPem };
    this.info = certificateInfo(o.initial.certPem);
    this.deadline = rotationDeadline(this.info.notBefore, this.info.notAfter, this.random);
  }

  /** The certificate and key to present now (a RestConfig's certificateSource). */
  current(): ClientCertificate {
    return this.pair;
  }

  /** The current certificate's serial, validity and subject. */
  certificate(): CertificateInfo {
    return this.info;
  }

  /** When the current certificate will be renewed (ms since the epoch). */
  rotationDeadline(): number {
    return this.deadline;
  }

  /** Renews at each deadline until the signal aborts. */
  async run(client: Client | undefined, signal: AbortSignal): Promise<void> {
    const requester = this.o.requester ?? defaultRequester(client, this.clock);
    let retryMs = RETRY_INITIAL_MS;
    this.o.logger.info('certificate rotation deadline', { serial: this.info.serial, notAfter: new Date(this.info.notAfter).toISOString(), deadline: new Date(this.deadline).toISOString() });
    while (!signal.aborted) {
      const wait = this.deadline - this.clock.now();
      if (wait > 0) {
        await this.clock.sleep(Math.min(wait, MAX_SLEEP_MS), signal);
        continue;
      }
      try {
        await this.rotate(requester, signal);
        retryMs = RETRY_INITIAL_MS;
      } catch (err) {
        if (signal.aborted) return;
        this.o.logger.error('failed to rotate the client certificate, will retry', { err, retryInSeconds: retryMs / 1000, notAfter: new Date(this.info.notAfter).toISOString() });
        await this.clock.sleep(retryMs, signal);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
  }

  /** One renewal: new key, CSR, wait, check, write, switch. */
  async rotate(requester: CertificateRequester, signal: AbortSignal): Promise<void> {
    const { csrPem, keyPem } = await newNodeCertificateRequest(this.o.nodeName);
    const { name, certPem } = await requester(csrPem, signal);
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) throw new Error(`certificate signing request ${name} was answered with a certificate for another key`);
    const info = certificateInfo(certPem);
    if (info.notAfter <= this.clock.now()) throw new Error(`certificate signing request ${name} was answered with a certificate that expired at ${new Date(info.notAfter).toISOString()}`);
    await writeAtomic(this.o.certPath, `${certPem.trim()}\n${keyPem.trim()}\n`);
    const previous = this.info.serial;
    this.pair = { cert: certPem, key: keyPem };
    this.info = info;
    this.deadline = rotationDeadline(info.notBefore, info.notAfter, this.random);
    this.o.logger.info('rotated the client certificate', {
      node: this.o.nodeName,
      csr: name,
      previousSerial: previous,
      serial: info.serial,
      notAfter: new Date(info.notAfter).toISOString(),
      nextRotation: new Date(this.deadline).toISOString(),
    });
  }
}

function defaultRequester(client: Client | undefined, clock: Clock): CertificateRequester {
  if (!client) throw new Error('the certificate manager needs a client or a requester');
  return (csrPem, signal) => requestNodeCertificate(client, csrPem, { namePrefix: 'csr-', signal, clock, timeoutMs: CSR_TIMEOUT_MS });
}

/** A PEM file holding a certificate and its key (the kubelet's `kubelet-client-current.pem`), if readable. */
export async function readCertificateKeyFile(path: string): Promise<{ certPem: string; keyPem: string } | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
  const key = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/.exec(text)?.[0];
  return cert && key ? { certPem: `${cert}\n`, keyPem: `${key}\n` } : undefined;
}
