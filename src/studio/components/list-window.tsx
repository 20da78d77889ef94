// A windowed list: only the rows in (and a little around) the viewport are in the DOM, so a list of
// thousands scrolls like a list of twenty. It follows the page's own scroll (no inner scroll box: phones,
// find-in-page scrolling and keyboard scrolling keep working) and needs rows of one fixed height.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface ListWindowProps {
  count: number;
  /** Every row's height in px (the CSS gives rows the same height). */
  rowHeight: number;
  /** What the list is, for screen readers. */
  label: string;
  renderRow: (index: number) => ComponentChildren;
  /** Rows rendered beyond each edge of the viewport: keyboard focus moving to the next row finds it there. */
  overscan?: number;
  /** Called with the rows rendered [start, end) (those in view and a few around) whenever they change: to load pages, to watch live rows. */
  onRange?: (start: number, end: number) => void;
}

/** Rows are added and removed in blocks of this many. */
const BLOCK = 8;

function sameRange(a: [number, number], b: [number, number]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

export function ListWindow({ count, rowHeight, label, renderRow, overscan = 6, onRange }: ListWindowProps) {
  const box = useRef<HTMLUListElement>(null);
  const [view, setView] = useState<[number, number]>([0, 0]);
  const reported = useRef<[number, number]>([-1, -1]);

  // The rows in view, from where the list's top is in the viewport; read once per frame at most.
  useLayoutEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      const el = box.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top;
      // Snapped to whole blocks of rows: the DOM changes once per block scrolled, not on every frame.
      const start = Math.max(0, Math.floor((-top / rowHeight - overscan) / BLOCK) * BLOCK);
      const end = Math.min(count, Math.ceil(((window.innerHeight - top) / rowHeight + overscan) / BLOCK) * BLOCK);
      const next: [number, number] = [Math.min(start, end), Math.max(start, end)];
      setView((v) => (sameRange(v, next) ? v : next));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    return () => {
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [count, rowHeight, overscan]);

  useEffect(() => {
    if (!sameRange(reported.current, view)) {
      reported.current = view;
      onRange?.(view[0], view[1]);
    }
  }, [view, onRange]);

  // Arrow keys move between rows' links (Tab does too); the next row is always rendered (overscan).
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const li = (e.target as HTMLElement).closest<HTMLElement>('li[data-index]');
    if (!li || !box.current) return;
    const to = Number(li.dataset.index) + (e.key === 'ArrowDown' ? 1 : -1);
    const next = box.current.querySelector<HTMLElement>(`li[data-index="${to}"] a, li[data-index="${to}"] [tabindex]`);
    if (next) {
      e.preventDefault();
      next.focus();
      next.scrollIntoView({ block: 'nearest' });
    }
  };

  const rows = [];
  for (let i = view[0]; i < view[1]; i++) {
    rows.push(
      <li key={i} data-index={i} aria-posinset={i + 1} aria-setsize={count} class="lw-row" style={{ transform: `translateY(${i * rowHeight}px)`, height: `${rowHeight}px` }}>
        {renderRow(i)}
      </li>,
    );
  }
  return (
    <ul ref={box} class="lw" aria-label={label} style={{ height: `${count * rowHeight}px` }} onKeyDown={onKeyDown}>
      {rows}
    </ul>
  );
}
