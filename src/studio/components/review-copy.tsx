// A "Copy" button that says "Copied" where a screen reader hears it. The status region is in the page from
// the start (a live region added together with its text is often not read).
import { useEffect, useRef, useState } from 'preact/hooks';

/** The clipboard API needs a secure context (https, localhost); a studio reached over plain http on a LAN falls back to execCommand. */
async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

export function CopyButton({ text, label, what }: { text: string; label: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await writeClipboard(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), 2500);
  };
  return (
    <span class="review-copy">
      <button type="button" class="review-small" aria-label={`${label} ${what}`} disabled={!text} onClick={() => void copy()}>
        {state === 'copied' ? 'Copied ✓' : label}
      </button>
      <span class="visually-hidden" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: select the text and copy it by hand' : ''}
      </span>
    </span>
  );
}
