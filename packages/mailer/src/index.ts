export { mailEnvironmentVariables, mailSettings, senderDomain, type MailSettings } from './config.js';
export { isRightToLeft, renderMail, type MailContent, type RenderedMail } from './render.js';
export { createMailTransport, isPermanentSmtpFailure, type MailTransport, type MailTransportOptions, type OutgoingMail } from './transport.js';
export {
  createMailer,
  DEFAULT_MAIL_RETRY_SCHEDULE_MS,
  MAIL_JOB,
  mailBacklog,
  mailHealthSchema,
  messageIdOf,
  type MailBacklog,
  type MailCatalog,
  type Mailer,
  type MailerOptions,
  type MailRequest,
  type MailWorkerOptions,
  type PayloadBox,
  type TemplateContext,
} from './mail-queue.js';
