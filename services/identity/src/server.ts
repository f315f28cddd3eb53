import { runService } from '@svc/service-kit';
import { identityService } from './service-definition.js';

await runService(identityService);
