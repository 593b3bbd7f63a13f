import { context, type Context, type SpanContext } from '@opentelemetry/api';
import { ATTR } from '../trace/attributes.js';
import { detachedContext } from '../trace/component-context.js';
import { addCause, currentCause, startCausedSpan } from '../trace/spans.js';

/**
 * The "DNS answer" hop of a journey: after a traced change to a Service or
 * its endpoints, the first answer from that Service's records gets one span,
 * caused by the change's watch deliveries. Later answers (and cached ones)
 * get none, so tracing costs nothing per query.
 */
export class AnswerTracer {
  private readonly pending = new Map<string, SpanContext[]>();
  /** The component's context, captured where the DNS component started. */
  private readonly base: Context = detachedContext();

  /** A change to a Service's records arrived (call it in the informer's handler, where the delivery's span is active). */
  changed(serviceKey: string): void {
    const cause = currentCause();
    if (!cause) return;
    let list = this.pending.get(serviceKey);
    if (!list) this.pending.set(serviceKey, (list = []));
    addCause(list, cause);
  }

  /** An answer came from a Service's records. */
  answered(serviceKey: string, qname: string, qtype: string): void {
    const causes = this.pending.get(serviceKey);
    if (!causes) return;
    this.pending.delete(serviceKey);
    const [namespace, name] = serviceKey.split('/');
    context.with(this.base, () => {
      const { span } = startCausedSpan('answer DNS query', causes, {
        hop: 'dns', initiator: 'client',
        attributes: { [ATTR.resource]: 'services', [ATTR.namespace]: namespace, [ATTR.name]: name, 'dns.question.name': qname, 'dns.question.type': qtype },
      });
      span.end();
    });
  }

  /** A Service is gone: drop what waited for its answer. */
  forget(serviceKey: string): void {
    this.pending.delete(serviceKey);
  }
}
