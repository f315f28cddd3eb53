/** A text field of a submitted form ('' when absent; a file input is no text). */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}
