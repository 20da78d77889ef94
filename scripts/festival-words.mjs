// Festival's SLT voice speaking a known text, with every word's onset from Festival's own Segment relation:
// the truth that word-timing measurements are held to (scripts/bench-transcribe.mjs and
// test/transcription-accuracy.test.ts). The speech and its word times are cached side by side.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** Silence put before and after the speech, as a recording would have: onsets are shifted by it. */
const PAD_SEC = 0.5;

/**
 * `wavPath` (mono 16-bit PCM at `sampleRate`) speaking `text`, and its words with onsets in seconds of that
 * file; made once (festival + ffmpeg), then read from `wavPath` and `wavPath.words.tsv`.
 */
export function festivalWithWordTimes(text, wavPath, { sampleRate = 16000, ffmpeg = 'ffmpeg' } = {}) {
  const times = `${wavPath}.words.tsv`;
  if (!existsSync(wavPath) || !existsSync(times)) {
    const raw = `${wavPath}.raw.wav`, scm = `${wavPath}.scm`;
    writeFileSync(scm, `(voice_cmu_us_slt_arctic_hts)
(set! u (Utterance Text ${JSON.stringify(text)}))
(utt.synth u)
(utt.save.wave u ${JSON.stringify(raw)} 'riff)
(mapcar (lambda (w) (format t "%s\\t%f\\n" (item.name w) (item.feat w "R:SylStructure.daughter1.daughter1.segment_start"))) (utt.relation.items u 'Word))
`);
    const tsv = execFileSync('festival', ['-b', scm], { encoding: 'utf8' });
    execFileSync(ffmpeg, ['-v', 'error', '-y', '-i', raw, '-af', `adelay=${PAD_SEC * 1000}:all=1,apad=pad_dur=${PAD_SEC}`,
      '-ac', '1', '-ar', String(sampleRate), '-c:a', 'pcm_s16le', `${wavPath}.tmp.wav`]);
    // Renamed into place last: a run killed half way never leaves a file that looks finished.
    writeFileSync(times, tsv.trim().split('\n').map((l) => { const [w, s] = l.split('\t'); return `${w}\t${(Number(s) + PAD_SEC).toFixed(3)}`; }).join('\n'));
    renameSync(`${wavPath}.tmp.wav`, wavPath);
  }
  return readFileSync(times, 'utf8').trim().split('\n').map((l) => { const [w, s] = l.split('\t'); return { text: w, onset: Number(s) }; });
}
