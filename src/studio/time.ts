// Times as people type and read them in the studio (the create view's range, the editor's cut): source
// seconds typed as "90", "12,5 s", "1:02.3" or "1:02:03", shown as m:ss(.s) or h:mm:ss(.s).

export const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Source seconds from what a person typed, or null when it is not a time (minutes and seconds after a colon stay under 60). */
export function parseTime(text: string): number | null {
  const t = text.trim().replace(/s$/i, '').trim().replace(',', '.');
  if (!t) return null;
  const parts = t.split(':');
  if (parts.length > 3) return null;
  let total = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const last = i === parts.length - 1;
    // Only the last part may have decimals; "1:75" is more likely a typo than 2:15.
    if (!(last ? /^\d+(\.\d*)?$|^\.\d+$/ : /^\d+$/).test(p)) return null;
    const n = Number(p);
    if (i > 0 && n >= 60) return null;
    total = total * 60 + n;
  }
  return Number.isFinite(total) ? round3(total) : null;
}

/**
 * m:ss or h:mm:ss with tenths: always (`'always'`, the editor, where a person nudges by 0.1 s) or only when
 * the time has them (`'when-any'`, the create view's range).
 */
export function formatTime(seconds: number, tenths: 'always' | 'when-any' = 'when-any'): string {
  const all = Math.round(Math.max(0, seconds) * 10);
  const whole = Math.floor(all / 10);
  const frac = all % 10;
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const ss = `${String(whole % 60).padStart(2, '0')}${frac || tenths === 'always' ? `.${frac}` : ''}`;
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
