// The little XML the project writers need: escaped text and attributes, nothing more.

/** Text or an attribute value with the five XML specials escaped; control characters XML 1.0 forbids are dropped. */
export function xmlEscape(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** ` name="value"` for each defined attribute, in order. */
export function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`).join('');
}
