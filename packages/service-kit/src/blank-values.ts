/** Environment values set but blank (`FOO=` or spaces) count as unset, so a default or `optional()` applies. */
export const emptyAsUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
