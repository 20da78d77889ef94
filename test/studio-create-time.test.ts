// The Create view's pure helpers: typed times, the source-field guess for pasted links, and spec 4.2's
// range rules as the form checks them before the server does.
import { describe, expect, it } from 'vitest';
import { fileProblem, formatTime, guessUrlKind, parseTime, rangeProblem, urlProblem } from '../src/studio/components/create-time.js';

describe('studio create helpers', () => {
  it('reads seconds, m:ss and h:mm:ss, and refuses anything else', () => {
    expect(parseTime('90')).toBe(90);
    expect(parseTime(' 12.5 ')).toBe(12.5);
    expect(parseTime('1:30')).toBe(90);
    expect(parseTime('01:02:03')).toBe(3723);
    expect(parseTime('0:12.3')).toBeCloseTo(12.3);
    for (const bad of ['', 'abc', '1:75', '1:60:00', '-5', '1:2:3:4']) expect(parseTime(bad)).toBeNull();
  });

  it('writes times back in a form parseTime reads', () => {
    expect(formatTime(0)).toBe('0:00');
    expect(formatTime(12.34)).toBe('0:12.3');
    expect(formatTime(3723)).toBe('1:02:03');
    for (const s of [0, 59.9, 600, 4000.5]) expect(parseTime(formatTime(s))).toBeCloseTo(s);
  });

  it('takes links ending in a video file extension for fileUrl, others for url', () => {
    expect(guessUrlKind('https://cdn.example.com/talks/keynote.MP4?sig=1')).toBe('fileUrl');
    expect(guessUrlKind('https://www.youtube.com/watch?v=abc')).toBe('url');
    expect(guessUrlKind('not a link')).toBe('url');
    expect(urlProblem('ftp://example.com/a.mp4')).toMatch(/http and https/);
    expect(urlProblem('https://www.youtube.com/shorts/abc')).toMatch(/shorts/);
    expect(urlProblem('https://vimeo.com/1')).toBeNull();
  });

  it('refuses files over 10 GB, empty files and non-videos before uploading', () => {
    expect(fileProblem({ name: 'talk.mp4', size: 10 * 1000 ** 3, type: 'video/mp4' })).toBeNull();
    expect(fileProblem({ name: 'talk.mp4', size: 10 * 1000 ** 3 + 1, type: 'video/mp4' })).toMatch(/10\.0 GB; files up to 10 GB/);
    expect(fileProblem({ name: 'talk.mkv', size: 5, type: '' })).toBeNull();
    expect(fileProblem({ name: 'notes.pdf', size: 5, type: 'application/pdf' })).toMatch(/not a video/);
    expect(fileProblem({ name: 'a.mp4', size: 0, type: 'video/mp4' })).toMatch(/empty/);
  });

  it('applies the 60-1200 s window except in the local studio', () => {
    expect(rangeProblem(0, 59, { local: false })).toMatch(/at least 1 minute/);
    expect(rangeProblem(0, 1201, { local: false })).toMatch(/at most 20 minutes/);
    expect(rangeProblem(10, 5, { local: false })).toMatch(/after the start/);
    expect(rangeProblem(0, null, { local: false })).toMatch(/end time/);
    expect(rangeProblem(0, 60, { local: false })).toBeNull();
    expect(rangeProblem(0, 1200, { local: false })).toBeNull();
    expect(rangeProblem(null, null, { local: true })).toBeNull();
    expect(rangeProblem(0, 5000, { local: true })).toBeNull();
  });
});
