// Work done twice before issue 22, counted through the media runner on the real sample (80 s of speech):
// a create probes its source once (the request's check, the fetch stage's title and the probe stage
// asked ffprobe three times), and a range's speech audio is decoded once for transcription and every
// clip edge (each edge decoded its own seconds before), with the same cuts as before.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalClient } from '../src/client/local-client.js';
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { placeClipEdges } from '../src/pipeline/analyze/clip-edges.js';
import { pickMoments } from '../src/pipeline/analyze/moments.js';
import { RangeAudio } from '../src/pipeline/transcribe/speech-audio.js';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import type { Highlight } from '../src/domain/highlight.js';
import type { Transcript } from '../src/domain/transcript.js';
import { SAMPLE } from './helpers/cli.js';

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'work-once-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('work done once per create (issue 22)', () => {
  it('a local create probes its source once', async () => {
    const saved = { ...process.env };
    // Small and fast renders: what is counted is the probes, not the picture.
    Object.assign(process.env, { SHORTS_RENDER_SIZE: '360x640', SHORTS_X264_PRESET: 'ultrafast', SHORTS_RENDER_CONCURRENCY: '1' });
    const media = createLocalMediaRunner();
    const client = new LocalClient(path.join(dir, 'create'), () => {}, { media });
    try {
      const { requestId } = await client.create({ file: SAMPLE, start: 0, end: 80, language: 'en', maxShorts: 1, preferredLength: 'under30sec', layout: 'fit' });
      expect((await client.wait(requestId)).status).toBe('completed');
      expect(media.counts().ffprobe).toBe(1);
      expect(media.counts().ffmpeg).toBeGreaterThan(0);
    } finally {
      client.close();
      for (const k of ['SHORTS_RENDER_SIZE', 'SHORTS_X264_PRESET', 'SHORTS_RENDER_CONCURRENCY']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('a range\'s speech audio is decoded once for the transcription and every clip edge, with the same cuts', async () => {
    const range = { start: 0, end: 80 };
    const media = createLocalMediaRunner();
    const audio = new RangeAudio(SAMPLE, range, path.join(dir, 'range.wav'), media);
    const transcript: Transcript = await createTranscriber({ dataDir: path.join(dir, 'data'), media })
      .transcribe({ mediaPath: SAMPLE, range, language: 'en', audio });
    expect(media.counts().ffmpeg).toBe(1);
    // Every sentence as its own clip: the most edges.
    const clips: Highlight[] = transcript.sentences.map((s) => ({
      sentenceIndexes: [s.index], start: s.start, end: s.end, viralScore: 50, features: {} as Highlight['features'], strengths: [], evidence: [],
    }));
    expect(clips.length).toBeGreaterThan(4);
    const shared = await placeClipEdges(clips, { mediaPath: SAMPLE, transcript, range, audio, media });
    expect(media.counts().ffmpeg).toBe(1);
    // The cuts as each edge's own decode places them (two ffmpeg runs per clip).
    const alone = createLocalMediaRunner();
    const own = await placeClipEdges(clips, { mediaPath: SAMPLE, transcript, range, media: alone });
    expect(alone.counts().ffmpeg).toBe(2 * clips.length);
    for (const [i, h] of shared.entries()) {
      expect(Math.abs(h.start - own[i]!.start)).toBeLessThanOrEqual(0.011);
      expect(Math.abs(h.end - own[i]!.end)).toBeLessThanOrEqual(0.011);
    }
    // The moments stage adds only its own audio analysis (8 kHz level and pitch), not one decode per edge.
    const moments = await pickMoments({
      mediaPath: SAMPLE, transcript, range, heatmap: [], preferredLength: 'under30sec', maxShorts: null, noClipping: false, audio, media,
    });
    expect(moments.length).toBeGreaterThan(1);
    expect(media.counts().ffmpeg).toBe(2);
  });
});
