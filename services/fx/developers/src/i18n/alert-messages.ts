import type { Language } from '@svc/fx-client/types';
import { ar } from './alerts/ar.js';
import { de } from './alerts/de.js';
import { en } from './alerts/en.js';
import { kmr } from './alerts/kmr.js';
import { ku } from './alerts/ku.js';
import { tr } from './alerts/tr.js';

/** The strings of the rate-alert screen and of key rotation, kept apart from the account screens' strings. */
export interface AlertMessages {
  alerts: string;
  rotate: string;
  rotateConfirm: string;
  rotatedTitle: string;
  rotatedWarning: string;
  rotatedAtOnce: string;
  alertsLead: string;
  alertsKey: string;
  noKeys: string;
  noAlerts: string;
  refresh: string;
  alert: string;
  webhookUrl: string;
  webhookColumn: string;
  currency: string;
  source: string;
  sources: { MARKET: string; CBS: string };
  alertType: string;
  /** By alertType: 0 ABOVE, 1 BELOW, 2 CHANGE_INCREASE, 3 CHANGE_DECREASE. */
  alertTypes: [string, string, string, string];
  threshold: string;
  thresholdNote: string;
  label: string;
  createAlert: string;
  editAlert: string;
  newAlertTitle: string;
  signingSecret: string;
  signingSecretWarning: string;
  health: string;
  enabled: string;
  disabled: string;
  lastStatus: string;
  noAnswer: string;
  noDeliveryYet: string;
  failuresInRow: string;
  edit: string;
  delete: string;
  deleteConfirm: string;
  deliveryLog: string;
  deliveriesTitle: string;
  noDeliveries: string;
  time: string;
  kind: string;
  kinds: { alert: string; test: string };
  status: string;
  latency: string;
  error: string;
  milliseconds: string;
  sendTest: string;
  testSucceeded: string;
  testFailed: string;
  reEnable: string;
  reEnabled: string;
  close: string;
}

export const ALERT_MESSAGES: Record<Language, AlertMessages> = { ar, en, de, tr, ku, kmr };
