import { createMailer, type Mailer, type PayloadBox } from '@svc/mailer';
import type { IdentityConfig } from '../../config.js';
import { jobs } from '../../db/schema.js';
import { JOBS_CHANNEL } from '../jobs/job-kinds.js';
import { identityMailCatalog, type IdentityMails } from './identity-mails.js';

export type IdentityMailer = Mailer<IdentityMails>;

/** Mails ride identity's job table (kind send-mail) and wake its job workers on commit; links start at the portal's public origin. */
export function createIdentityMailer(config: Pick<IdentityConfig, 'PORTAL_ORIGIN' | 'MAIL_FROM'>, box: PayloadBox): IdentityMailer {
  return createMailer({ table: jobs, catalog: identityMailCatalog, publicBaseUrl: config.PORTAL_ORIGIN, from: config.MAIL_FROM, box, notifyChannel: JOBS_CHANNEL });
}
