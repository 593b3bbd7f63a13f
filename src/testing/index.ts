/**
 * `skiff/testing`: the real API server (and, with startTestCluster, the
 * controllers and scheduler) in-process over in-memory storage, for tests of
 * clients, controllers and operators.
 */
export { startTestApiServer, type TestApiServer, type TestApiServerOptions } from './test-api-server.js';
export { startTestCluster, type TestCluster, type TestClusterOptions } from './test-cluster.js';
export { SimulatedNodes } from './simulated-nodes.js';
export { FaultProxy, type RecordedRequest } from './fault-proxy.js';
export { TestObjects } from './objects.js';
export { MemoryStorage } from '../apiserver/in-memory-storage.js';
export { skipUnless, missingRoot, missingCommand } from './requirements.js';
