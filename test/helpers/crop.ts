// The renderer's reading of crop keyframes, for tests that check where a crop window is at a time.
import type { CropKeyframe } from '../../src/domain/layout.js';

/** Linear between keyframes, held before the first and after the last (as cropExpression renders them). */
export function cropAt(frames: CropKeyframe[], t: number): { cx: number; cy: number } {
  const next = frames.findIndex((k) => k.t > t);
  if (next === 0) return frames[0]!;
  if (next < 0) return frames[frames.length - 1]!;
  const a = frames[next - 1]!, b = frames[next]!;
  const f = (t - a.t) / (b.t - a.t);
  return { cx: a.cx + (b.cx - a.cx) * f, cy: a.cy + (b.cy - a.cy) * f };
}
