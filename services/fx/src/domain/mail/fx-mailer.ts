import { createMailer, type Mailer, type PayloadBox } from '@svc/mailer';
import type { FxConfig } from '../../config.js';
import { jobs } from '../../db/schema.js';
import { fxMailCatalog, type FxMails } from './fx-mails.js';

export type FxMailer = Mailer<FxMails>;

/** NOTIFY channel of fx's job table: a committed mail wakes the mail worker at once (the poll is the fallback). */
export const FX_JOBS_CHANNEL = 'fx_jobs';

/** Mails ride fx's job table (kind send-mail); links start at PUBLIC_BASE_URL. */
export function createFxMailer(config: Pick<FxConfig, 'PUBLIC_BASE_URL' | 'MAIL_FROM'>, box: PayloadBox): FxMailer {
  return createMailer({ table: jobs, catalog: fxMailCatalog, publicBaseUrl: config.PUBLIC_BASE_URL, from: config.MAIL_FROM, box, notifyChannel: FX_JOBS_CHANNEL });
}
