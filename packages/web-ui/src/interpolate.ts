/**
 * `{name}` in a message is replaced by vars.name; a missing variable stays visible as {name} rather than vanishing.
 * The one placeholder rule of every web app; it holds no language state, so any page may import it whatever
 * languages it offers.
 */
export function interpolate(text: string, vars?: Record<string, string | number>): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
