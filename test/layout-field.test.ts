// Issue 13, "explainable": each clip keeps the layout it really got, the detail shows it (`layout` on
// every short) and `shorts get` prints it; a clip's reason can end with what its layout shows.
// The end-to-end part runs the real CLI, whisper.cpp, ffmpeg and SQLite on the shipped sample; what it
// checks is the layout, not transcription, so its requests use the sample's 0-60 s transcript made once per
// machine (test/helpers/seeded-cache.ts) instead of transcribing the talk once per request.
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { SEEDED_RANGE, seed, warmCache } from './helpers/seeded-cache.js';
import { layoutReason, withLayoutReason } from '../src/pipeline/analyze/reason.js';
import type { RequestDetail } from '../src/api/types.js';

/** The cells of a cli-table3 table (header first), one array per row; colours (the borders') removed. */
function tableCells(text: string): string[][] {
  return stripVTControlCharacters(text).split('\n').filter((l) => l.startsWith('│')).map((l) => l.slice(1, -1).split('│').map((c) => c.trim()));
}

/** The source, range and language whose transcript the seed holds (the rest of a create is free to differ). */
const SEEDED_SOURCE = ['--file', SAMPLE, ...SEEDED_RANGE, '--language', 'en'];

/** A fresh data dir whose cache holds the seeded transcript. */
async function seededEnv(): Promise<NodeJS.ProcessEnv> {
  const env = cliEnv();
  seed(env.SHORTS_DATA_DIR!, await warmCache());
  return env;
}

describe('shorts get shows the layout each clip was rendered with', () => {
  let env: NodeJS.ProcessEnv;
  let created: Awaited<ReturnType<typeof runCli>>;
  let detail: RequestDetail;

  beforeAll(async () => {
    env = await seededEnv();
    // Two clips, so "every clip" means something.
    created = await runCli(['create', ...SEEDED_SOURCE, '--max-shorts', '2', '--preferred-length', 'under30sec', '--layout', 'fit', '--json'], env);
    detail = JSON.parse(created.stdout) as RequestDetail;
  }, 300_000);

  it('--json: every short of the finished request says "fit"', async () => {
    expect(created.code, created.stderr).toBe(0);
    expect(detail.status).toBe('completed');
    expect(detail.shorts.length).toBeGreaterThan(0);
    const got = await runCli(['get', detail._id, '--json'], env);
    expect(got.code, got.stderr).toBe(0);
    const shorts = (JSON.parse(got.stdout) as RequestDetail).shorts;
    expect(shorts.map((s) => s.id)).toEqual(detail.shorts.map((s) => s.id));
    expect(shorts.map((s) => s.layout)).toEqual(shorts.map(() => 'fit'));
    // What create printed is the same detail.
    expect(detail.shorts.map((s) => s.layout)).toEqual(shorts.map(() => 'fit'));
  });

  it('the table has a layout column holding "fit" on every clip row', async () => {
    const got = await runCli(['get', detail._id], env);
    expect(got.code, got.stderr).toBe(0);
    const [head, ...rows] = tableCells(got.stdout);
    const col = head!.indexOf('layout');
    expect(col, got.stdout).toBeGreaterThan(0);
    expect(rows).toHaveLength(detail.shorts.length);
    expect(rows.map((r) => r[col])).toEqual(rows.map(() => 'fit'));
  });
});

describe('the layout shown is the one the clip got, not the one asked for', () => {
  it('split asked on a one-person talk: the clip falls back to what auto picks and says so', async () => {
    const env = await seededEnv();
    const r = await runCli(['create', ...SEEDED_SOURCE, '--max-shorts', '1', '--preferred-length', 'under30sec', '--layout', 'split', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as RequestDetail;
    expect(d.shorts).toHaveLength(1);
    // The sample is one speaker filmed alone: no second person to split for.
    expect(d.shorts.map((s) => s.layout)).toEqual(['fill']);
    expect(d.shorts[0]!.reason).not.toMatch(/split screen/);
  }, 300_000);
});

describe('a reason says what its layout shows', () => {
  it('split and screen add a sentence; fill, fit and square add nothing', () => {
    expect(layoutReason('split')).toBe('Two people: split screen, one per half');
    expect(layoutReason('screen')).toBe('Screen recording: screen above, speaker below');
    for (const l of ['fill', 'fit', 'square'] as const) {
      expect(layoutReason(l)).toBeNull();
      expect(withLayoutReason('Opens with a question, "Why?".', l)).toBe('Opens with a question, "Why?".');
    }
  });

  it('appends one sentence after the reason, once, in the reason\'s language', () => {
    const reason = 'Opens with a question, "Why do we forget?"; ends on "practice".';
    const split = withLayoutReason(reason, 'split');
    expect(split).toBe(`${reason} Two people: split screen, one per half.`);
    // A resumed render that completes the reason again does not repeat it.
    expect(withLayoutReason(split, 'split')).toBe(split);
    expect(withLayoutReason('A reason without a full stop', 'screen')).toBe('A reason without a full stop. Screen recording: screen above, speaker below.');
    expect(withLayoutReason('Commence par une question.', 'screen', 'fr')).toBe(
      "Commence par une question. Enregistrement d'écran\u00a0: l'écran en haut, la personne qui parle en bas.");
    expect(withLayoutReason('Empieza con una pregunta.', 'split', 'es-419')).toMatch(/ Dos personas: pantalla dividida, una en cada mitad\.$/);
    // Languages without a phrasebook get English, as the rest of the reason does.
    expect(layoutReason('split', 'ja')).toBe('Two people: split screen, one per half');
  });
});
