/**
 * Runs the WebApp operator against the cluster of $KUBECONFIG (or the
 * default kubeconfig) until interrupted:
 *
 *   node --import tsx examples/webapp-operator/main.ts
 */
import * as k8s from '@kubernetes/client-node';
import { WebAppOperator } from './operator.js';

const kubeConfig = new k8s.KubeConfig();
kubeConfig.loadFromDefault();
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());
await new WebAppOperator({ kubeConfig, signal: stop.signal, log: (msg) => console.log(msg) }).run();
