import { CANCELLABLE_CASE_STATUSES, TERMINAL_CASE_STATUSES } from '@svc/identity-client/types';
import { CASE_STATUSES, type CaseStatus, type OcrResult } from './case-types.js';

/** The spec's cancel sources (case-states.ts TRANSITIONS.cancel): other open states are being processed. */
const CANCELLABLE: readonly CaseStatus[] = CANCELLABLE_CASE_STATUSES;
const TERMINAL: readonly CaseStatus[] = TERMINAL_CASE_STATUSES;

export const canCancel = (status: CaseStatus) => CANCELLABLE.includes(status);
/** The server corrects OCR fields until the case is closed (case-commands.ts correctOcrFields). */
export const canCorrectOcr = (status: CaseStatus) => !TERMINAL.includes(status);
export const isTerminalStatus = (status: CaseStatus) => TERMINAL.includes(status);

export const PAGE_SIZE = 20;

export interface CaseListQuery {
  status: CaseStatus | undefined;
  search: string | undefined;
  page: number;
}

/** The list's state lives in the URL, so reload and back show the same page; junk falls back to defaults. */
export function listQueryFromUrl(query: URLSearchParams): CaseListQuery {
  const status = query.get('status') ?? '';
  const search = query.get('search')?.trim() ?? '';
  const page = Number(query.get('page'));
  return {
    status: (CASE_STATUSES as readonly string[]).includes(status) ? (status as CaseStatus) : undefined,
    search: search === '' ? undefined : search.slice(0, 200),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** Extracted OCR fields in the order the model gave them, each shown as text. */
export function parseExtractedFields(json: string): [field: string, value: string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  return Object.entries(parsed as Record<string, unknown>).map(([field, value]) => [field, fieldText(value)]);
}

export interface OcrFieldRow {
  field: string;
  value: string;
  /** The reader was not sure of it and left it out: a person reads it off the document. */
  toConfirm: boolean;
}

/**
 * The rows a person sees: the document's fields (the stored object repeats the list of fields to
 * confirm under its own key, which is no document field), then an empty row for each field to confirm.
 */
export function ocrFieldRows(ocr: Pick<OcrResult, 'extractedFieldsJson' | 'fieldsToConfirm'>): OcrFieldRow[] {
  const toConfirm = new Set(ocr.fieldsToConfirm);
  const rows = parseExtractedFields(ocr.extractedFieldsJson)
    .filter(([field]) => field !== 'fieldsToConfirm')
    .map(([field, value]) => ({ field, value, toConfirm: toConfirm.has(field) }));
  return [...rows, ...[...toConfirm].filter((field) => !rows.some((row) => row.field === field)).map((field) => ({ field, value: '', toConfirm: true }))];
}

/** Fields printed in Arabic (their names end in Ar) read right to left on either language's page; others follow their text. */
export const fieldDirection = (field: string): 'rtl' | 'auto' => (/Ar$/.test(field) ? 'rtl' : 'auto');

function fieldText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

/** Only the fields whose text differs: what the PATCH sends and what the before/after view lists. */
export function changedFields(before: [string, string][], edited: Record<string, string>): FieldChange[] {
  return before.filter(([field, value]) => edited[field] !== undefined && edited[field] !== value).map(([field, value]) => ({ field, before: value, after: edited[field]! }));
}

/** 64 hex characters are noise at a glance; the start is enough to compare, the title holds the rest. */
export const shortHash = (hex: string) => (hex.length > 16 ? `${hex.slice(0, 12)}…` : hex);

export type ActorKind = 'partnerClient' | 'portalUser' | 'endUser' | 'checks' | 'expiry' | 'reviewer' | 'operator' | 'other';

/** Audit actors are `client:<id>`, `user:<id>`, `end-user:<session>`, `system:checks`, `system:expiry`, `staff:<id>`, `cli`. */
export function actorKind(actor: string): ActorKind {
  const [kind, rest] = actor.split(':', 2);
  if (kind === 'client') return 'partnerClient';
  if (kind === 'user') return 'portalUser';
  if (kind === 'end-user') return 'endUser';
  if (kind === 'staff') return 'reviewer';
  if (kind === 'cli') return 'operator';
  if (kind === 'system' && rest === 'checks') return 'checks';
  if (kind === 'system' && rest === 'expiry') return 'expiry';
  return 'other';
}

export const isImage = (contentType: string) => contentType.startsWith('image/');
export const isVideo = (contentType: string) => contentType.startsWith('video/');

/** A score in 0–1 as a bar width in percent, clamped so a bad value never draws outside its track. */
export const meterPercent = (score: number) => Math.round(Math.min(1, Math.max(0, score)) * 1000) / 10;

/** What a timeline entry says in words: a cancel's or a decision's reason, or a correction's notes. */
export function entryNote(detail: Record<string, unknown> | null): { kind: 'reason' | 'notes'; text: string } | null {
  if (!detail) return null;
  for (const [key, kind] of [['reason', 'reason'], ['decisionReason', 'reason'], ['notes', 'notes']] as const) {
    const value = detail[key];
    if (typeof value === 'string' && value.trim() !== '') return { kind, text: value };
  }
  return null;
}

/**
 * What an OCR-correction entry of the history says: `detail.fields` holds the new values; the
 * values before are there only when the server includes them (`detail.before.fields`), so a
 * missing before value stays null rather than pretending the field was empty.
 */
export function entryFieldChanges(detail: Record<string, unknown> | null): { field: string; before: string | null; after: string }[] {
  if (!detail) return [];
  const record = (value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null);
  const after = record(detail.fields);
  if (!after) return [];
  const before = record(record(detail.before)?.fields);
  return Object.keys(after).map((field) => ({ field, before: before && Object.hasOwn(before, field) ? fieldText(before[field]) : null, after: fieldText(after[field]) }));
}
