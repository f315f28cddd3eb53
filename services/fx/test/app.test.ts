import { describeBaseApp } from '@svc/service-kit/testing';
import { buildTestApp } from './helpers.js';

describeBaseApp({ service: 'fx', healthPath: '/api/v1/health', buildTestApp: () => buildTestApp() });
