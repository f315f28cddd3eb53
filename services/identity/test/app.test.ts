import { describeBaseApp } from '@svc/service-kit/testing';
import { buildTestApp } from './helpers.js';

describeBaseApp({ service: 'identity', healthPath: '/health', buildTestApp: () => buildTestApp(), extraChecks: { jobs: [], webhooks: [], automatedChecks: { provider: 'none', ready: null, problems: [] }, retention: { due: 0, redacting: 0 }, mail: { transport: 'file', queued: 0, retrying: 0, oldestQueuedAt: null } } });
