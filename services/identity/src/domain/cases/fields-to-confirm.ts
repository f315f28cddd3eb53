/**
 * Fields the checks could not read with confidence travel inside the stored extracted fields under
 * one key, whose value (comma-separated names) keeps the object a map of text to text. Every
 * reader of the stored object goes through here, so no one takes the list for a document field.
 */
export const FIELDS_TO_CONFIRM_KEY = 'fieldsToConfirm';

export function fieldsToConfirmOf(extracted: Record<string, unknown>): string[] {
  const list = extracted[FIELDS_TO_CONFIRM_KEY];
  return typeof list === 'string' ? list.split(',').map((name) => name.trim()).filter((name) => name !== '') : [];
}

/** The stored object's fields to confirm, or none when it is not a JSON object. */
export function fieldsToConfirmIn(extractedFieldsJson: string): string[] {
  try {
    const parsed: unknown = JSON.parse(extractedFieldsJson);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? fieldsToConfirmOf(parsed as Record<string, unknown>) : [];
  } catch {
    return [];
  }
}

/** The fields with the list set (or removed when empty), the key kept last. */
export function withFieldsToConfirm<T>(fields: Record<string, T>, names: readonly string[] | undefined): Record<string, T | string> {
  const { [FIELDS_TO_CONFIRM_KEY]: _previous, ...rest } = fields;
  return names === undefined || names.length === 0 ? rest : { ...rest, [FIELDS_TO_CONFIRM_KEY]: names.join(',') };
}
