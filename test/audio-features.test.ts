import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseAudio, audioArgs, findAudioEvents, voicedSeconds } from '../src/pipeline/analyze/audio-features.js';
import { PipelineError } from '../src/errors.js';
import { dryTalk } from './helpers/dry-talk.js';
import { dryTalkTranscript } from './helpers/dry-talk-transcript.js';
import { JFK_WAV, video } from './helpers/media.js';

// Real sounds from Debian packages the CI installs: hedgewars-data voice packs (recorded laughs and
// screams, GFDL-1.3), frozen-bubble-data (recorded applause, GPL-2), asterisk Allison prompts (speech).
const VOICES = '/usr/share/games/hedgewars/Data/Sounds/voices';
const APPLAUSE = '/usr/share/games/frozen-bubble/snd/applause.ogg';

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(tmpdir(), 'audio-features-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ffmpeg(...args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
}

describe('analyseAudio', () => {
  it('measures level differences and the pitch of a tone', async () => {
    const wav = path.join(dir, 'tone.wav');
    // 1 s of a quiet 220 Hz tone, then 1 s of the same tone 20 dB louder.
    ffmpeg('-f', 'lavfi', '-i', 'aevalsrc=if(lt(t\\,1)\\,0.05\\,0.5)*sin(2*PI*220*t):s=16000:d=2', wav);
    const a = await analyseAudio(wav, { start: 0, end: 2 });
    expect(a.frameSec).toBe(0.025);
    expect(a.levelDb).toHaveLength(80);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    expect(mean(a.levelDb.slice(45, 75)) - mean(a.levelDb.slice(5, 35))).toBeCloseTo(20, 0);
    for (const hz of a.pitchHz.slice(5, 75)) expect(Math.abs(hz - 220)).toBeLessThan(3);
    for (const f of a.flatness.slice(5, 75)) expect(f).toBeLessThan(0.05); // a pure tone is the opposite of noise
  });

  it('tracks a real voice in the range of human pitch, starting at the range start', async () => {
    const a = await analyseAudio(JFK_WAV, { start: 2, end: 8 });
    expect(a.start).toBe(2);
    expect(a.levelDb.length).toBe(240);
    const voiced = a.pitchHz.filter((p) => p > 0);
    expect(voiced.length).toBeGreaterThan(40);
    const sorted = [...voiced].sort((x, y) => x - y);
    const median = sorted[sorted.length >> 1]!;
    expect(median).toBeGreaterThan(80);
    expect(median).toBeLessThan(300);
  });

  it('reads the audio of a video file', async () => {
    const wav = path.join(dir, 'v.wav');
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=16000:duration=2', wav);
    const a = await analyseAudio(video({ duration: 2, width: 160, height: 90, fps: 10, audio: wav }), { start: 0, end: 2 });
    expect(a.levelDb.length).toBeGreaterThanOrEqual(78);
    expect(a.pitchHz[40]).toBeGreaterThan(290);
  });

  it('fails with a pipeline error a user can read when the file has no audio', async () => {
    const err = await analyseAudio(video({ duration: 1, width: 160, height: 90, fps: 10 }), { start: 0, end: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).stage).toBe('highlights');
  });

  it('stops at once when cancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(analyseAudio(JFK_WAV, { start: 0, end: 5 }, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('decodes only the range, once, as 8 kHz mono PCM', () => {
    expect(audioArgs('/m/in.mp4', { start: 12.5, end: 72.5 })).toEqual([
      '-hide_banner', '-nostdin', '-v', 'error', '-ss', '12.500', '-t', '60.000', '-i', '/m/in.mp4',
      '-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', '1', '-ar', '8000', '-f', 's16le', '-acodec', 'pcm_s16le', '-',
    ]);
  });
});

describe('findAudioEvents', () => {
  it('finds the two bursts of real laughter in a 3-minute talk and nothing in 170 s of recorded speech', async () => {
    const talk = dryTalk();
    const transcript = dryTalkTranscript();
    const audio = await analyseAudio(talk.wav, transcript.range);
    const events = findAudioEvents(audio, transcript.words);
    for (const laugh of talk.laughs) {
      const found = events.filter((e) => e.start < laugh.end && e.end > laugh.start);
      expect(found.length, JSON.stringify(laugh)).toBeGreaterThanOrEqual(1);
      expect(found.every((e) => e.kind === 'laughter')).toBe(true);
    }
    // Every event is one of the laughs: the prompts and the story's speech raise none.
    for (const e of events) expect(talk.laughs.some((l) => e.start < l.end + 0.1 && e.end > l.start - 0.1), JSON.stringify(e)).toBe(true);
  });

  it('still hears the laughter when the recogniser lays the next words over it', async () => {
    // Measured on a real transcript: the words after a 4 s laugh were placed 4 s early, right over it.
    const talk = dryTalk();
    const transcript = dryTalkTranscript();
    const laugh = talk.laughs[0]!;
    const shift = laugh.end - laugh.start + 0.2;
    const drifted = transcript.words.map((w) => (w.start >= laugh.end ? { ...w, start: w.start - shift, end: w.end - shift } : w));
    expect(drifted.some((w) => w.start < laugh.end && w.end > laugh.start)).toBe(true);
    const audio = await analyseAudio(talk.wav, transcript.range);
    const found = findAudioEvents(audio, drifted).filter((e) => e.start < laugh.end && e.end > laugh.start);
    expect(found.map((e) => e.kind)).toContain('laughter');
  });

  it('tells laughter, a scream and applause apart on recorded sounds', async () => {
    // One laugh, a scream ("Nooo"), recorded applause, each after a second of silence.
    const wav = path.join(dir, 'sounds.wav');
    ffmpeg(
      '-i', `${VOICES}/Default/Laugh.ogg`, '-i', `${VOICES}/Surfer/Nooo.ogg`, '-i', APPLAUSE,
      '-filter_complex', '[0:a]aresample=16000,adelay=1000,apad=pad_dur=1[a];[1:a]aresample=16000,apad=pad_dur=1[b];[2:a]aresample=16000,apad=pad_dur=1[c];[a][b][c]concat=n=3:v=0:a=1,aformat=channel_layouts=mono',
      wav,
    );
    const audio = await analyseAudio(wav, { start: 0, end: 12 });
    const kinds = findAudioEvents(audio, []).map((e) => e.kind);
    expect(kinds).toEqual(['laughter', 'scream', 'applause']);
  });
});

describe('voicedSeconds: is there a voice at all (the "no speech" gate before Whisper)', () => {
  const pcm = (input: string[]): Int16Array => {
    const raw = execFileSync('ffmpeg', ['-v', 'error', ...input, '-ac', '1', '-ar', '16000', '-f', 's16le', '-'], { maxBuffer: 64 << 20 });
    return new Int16Array(raw.buffer, raw.byteOffset, raw.length >> 1);
  };
  it('hears none in brown, pink or white noise (random seeds), and plenty in recorded voices, noisy or not', () => {
    for (const color of ['brown', 'pink', 'white']) {
      const noise = pcm(['-f', 'lavfi', '-i', `anoisesrc=color=${color}:amplitude=0.05:duration=30`]);
      expect(voicedSeconds(noise, 16000), color).toBe(0);
    }
    const jfk = pcm(['-i', JFK_WAV]);
    expect(voicedSeconds(jfk, 16000)).toBeGreaterThan(2);
    // The same speech with white noise as loud as the voice over it.
    const noisy = pcm(['-i', JFK_WAV, '-f', 'lavfi', '-i', 'anoisesrc=color=white:amplitude=0.1:duration=11', '-filter_complex', '[0][1]amix=inputs=2:normalize=0']);
    expect(voicedSeconds(noisy, 16000)).toBeGreaterThan(2);
    // An 8 kHz telephone prompt (a held-out voice: Spanish, asterisk-core-sounds-es-wav).
    const prompt = pcm(['-i', '/usr/share/asterisk/sounds/es/agent-pass.wav']);
    expect(voicedSeconds(prompt, 16000)).toBeGreaterThan(1);
    // Counting stops once enough is heard.
    expect(voicedSeconds(jfk, 16000, 0.3)).toBeLessThan(0.4);
  });
});
