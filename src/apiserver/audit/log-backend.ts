import type { AuditEvent } from './event.js';
import type { AuditSink } from './request-audit.js';
import type { LineWriter } from './rotating-file-writer.js';

/** Upstream's log backend in its json format: one audit.k8s.io/v1 Event per line. */
export class LogBackend implements AuditSink {
  constructor(private readonly writer: LineWriter) {}

  processEvent(event: AuditEvent): void {
    this.writer.write(`${JSON.stringify(event)}\n`);
  }

  /** Waits until every event so far is written (shutdown, tests). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
