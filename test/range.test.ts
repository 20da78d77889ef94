import { describe, expect, it } from 'vitest';
import { clampRange } from '../src/pipeline/fetch/range.js';
import { ShortsError } from '../src/errors.js';

describe('clampRange', () => {
  it('keeps a range that fits inside the video, with no adjustment', () => {
    expect(clampRange({ start: 10, end: 130 }, 600)).toEqual({ range: { start: 10, end: 130 }, adjustment: null });
  });

  it('keeps a range that ends exactly at the end of the video', () => {
    expect(clampRange({ start: 0, end: 600 }, 600).adjustment).toBeNull();
  });

  it('shortens a range that runs past the end and reports original and adjusted values', () => {
    const { range, adjustment } = clampRange({ start: 30, end: 400 }, 312.3456789);
    expect(range).toEqual({ start: 30, end: 312.346 });
    expect(adjustment).toEqual({ original: { start: 30, end: 400 }, adjusted: { start: 30, end: 312.346 } });
  });

  it('rounds the adjusted start to milliseconds as well', () => {
    const { adjustment } = clampRange({ start: 1.23456, end: 100 }, 90);
    expect(adjustment?.adjusted).toEqual({ start: 1.235, end: 90 });
    expect(adjustment?.original).toEqual({ start: 1.23456, end: 100 });
  });

  it('rejects a start at or beyond the end of the video with invalid_request', () => {
    for (const start of [300, 450]) {
      let error: unknown;
      try {
        clampRange({ start, end: start + 60 }, 300);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ShortsError);
      expect(error).toMatchObject({ code: 'invalid_request', message: `start (${start}s) is beyond the end of the video (300s)` });
    }
  });

  it('names the duration rounded to milliseconds in the message', () => {
    expect(() => clampRange({ start: 500, end: 600 }, 123.45678)).toThrow('start (500s) is beyond the end of the video (123.457s)');
  });
});
