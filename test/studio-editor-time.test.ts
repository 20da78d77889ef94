// The clip editor's time parsing and cut rules (src/studio/components/editor-time.ts): what a creator types
// becomes source seconds, and the page refuses exactly the cuts the render endpoint would.
import { describe, expect, it } from 'vitest';
import { formatDuration, formatTime, inRange, nudge, parseTime, rangeProblem } from '../src/studio/components/editor-time.js';

describe('clip editor times', () => {
  it('reads seconds, m:ss.s and h:mm:ss, and refuses what is not a time', () => {
    expect(parseTime('12.5')).toBe(12.5);
    expect(parseTime(' 12,5 s ')).toBe(12.5);
    expect(parseTime('1:02.3')).toBe(62.3);
    expect(parseTime('1:02:03')).toBe(3723);
    expect(parseTime('.5')).toBe(0.5);
    for (const bad of ['', 'abc', '1:60', '1:2:3:4', '-3', '1.2.3', '1.5:00']) expect(parseTime(bad)).toBeNull();
  });

  it('shows times in tenths and round-trips them', () => {
    expect(formatTime(0)).toBe('0:00.0');
    expect(formatTime(62.34)).toBe('1:02.3');
    expect(formatTime(59.96)).toBe('1:00.0');
    expect(formatTime(3723.4)).toBe('1:02:03.4');
    expect(parseTime(formatTime(75.2))).toBe(75.2);
    expect(formatDuration(27.44)).toBe('27.4 s');
    expect(formatDuration(125)).toBe('2 min 5.0 s');
  });

  it('refuses the cuts the server refuses (1-600 s, start before end, inside the source)', () => {
    expect(rangeProblem({ start: 10, end: 40 }, 80)).toBeNull();
    expect(rangeProblem({ start: 10, end: 10.5 })).toMatch(/at least 1 s/);
    expect(rangeProblem({ start: 0, end: 600.5 })).toMatch(/at most 10 minutes/);
    expect(rangeProblem({ start: 0, end: 600 })).toBeNull();
    expect(rangeProblem({ start: 40, end: 30 })).toMatch(/after the start/);
    expect(rangeProblem({ start: 70, end: 81 }, 80)).toMatch(/past the end/);
    expect(rangeProblem({ start: 70, end: 80.04 }, 80)).toBeNull();
  });

  it('nudges inside the source and counts a word in the cut by its middle', () => {
    expect(nudge(0.05, -0.1)).toBe(0);
    expect(nudge(79.5, 1, 80)).toBe(80);
    expect(nudge(12.3, 0.1)).toBe(12.4);
    expect(inRange({ start: 9.8, end: 10.4 }, { start: 10, end: 20 })).toBe(true);
    expect(inRange({ start: 9.5, end: 10.1 }, { start: 10, end: 20 })).toBe(false);
  });
});
