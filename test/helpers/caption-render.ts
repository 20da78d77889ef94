// Renders caption cues in a template over a 360x640 test source, the way a short draws them (the real
// buildAss + renderClip), for tests that look at the caption pixels of the output.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fontsDir, type CaptionTemplate } from '../../src/catalog/templates.js';
import { renderClip } from '../../src/media/render.js';
import type { RenderPlan } from '../../src/media/render-plan.js';
import { buildAss } from '../../src/pipeline/captions/captions.js';
import type { CaptionCue } from '../../src/domain/captions.js';
import type { TimeRange } from '../../src/domain/time.js';

export interface CaptionRender {
  template: CaptionTemplate;
  cues: CaptionCue[];
  /** A 360x640 silent source (test/helpers/media.ts video()). */
  source: string;
  clip: TimeRange;
  dir: string;
  size: { width: number; height: number };
  background: string;
}

/** Writes `<dir>/<template>.ass` and renders `<dir>/<template>.mp4`; returns both paths. */
export async function renderCaptions(r: CaptionRender): Promise<{ file: string; ass: string }> {
  const ass = path.join(r.dir, `${r.template.name}.ass`);
  writeFileSync(ass, buildAss(r.cues, r.template, r.size));
  const plan: RenderPlan = {
    version: 1,
    input: { path: r.source, start: r.clip.start, end: r.clip.end, width: 360, height: 640, hasAudio: false },
    output: { path: path.join(r.dir, `${r.template.name}.mp4`), width: r.size.width, height: r.size.height, preset: 'ultrafast', crf: 18 },
    reframe: { layout: 'fill', cropWidth: 360, cropHeight: 640, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
    background: { blur: false, color: r.background },
    captions: { assPath: ass, fontsDir: fontsDir() },
  };
  await renderClip(plan);
  return { file: plan.output.path, ass };
}
