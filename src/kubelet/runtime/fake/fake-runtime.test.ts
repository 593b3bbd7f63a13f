import { runtimeConformance } from '../conformance.js';
import { FakeRuntime } from './fake-runtime.js';

runtimeConformance('FakeRuntime', () => new FakeRuntime(), undefined, { logFiles: false, processes: false });
