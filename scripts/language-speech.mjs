// Speech with known text in many languages, made from Debian packages at run time (issue 11): real
// recorded telephone prompts (asterisk-core-sounds: Spanish, French, Italian, Russian; their text read from
// the package's own core-sounds-*.txt), Festival voices (Italian, Catalan, Czech, Finnish, Russian, Hindi,
// Marathi, Telugu) and espeak-ng (German, Chinese, Japanese, Arabic, Hebrew). Shared by
// scripts/bench-languages.mjs and test/languages.test.ts so the benchmark and the test hold the model to
// the same audio and the same text.
//
// Nothing here is committed as audio: the voices and prompts are Debian packages (.ci/run installs them),
// a few hundred kilobytes of WAV per language would bloat the repository, and the prompts' CC-BY-SA
// licence would follow the files into it. Made once per machine under os.tmpdir() (a few seconds each).
//
// Debian 12's festvox-hi-nsk, -mr-nsk and -te-nsk do not depend on the language packages they need
// (festival-hi, festival-mr, festival-te); without festival-te an installed festvox-te-nsk makes EVERY
// text2wave run crash while Festival loads its default voice, the English one included.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Bump when the way speech is made changes, so stale cached files are not reused. */
const VERSION = 1;
export const CACHE_DIR = path.join(os.tmpdir(), 'shortwright-language-speech');
/** Silence between sentences (prompts) and around the speech, as a recording would have. */
const GAP_SEC = 0.5;

const ASTERISK_SOUNDS = '/usr/share/asterisk/sounds';
const ASTERISK_TEXT = (lang) => `/usr/share/doc/asterisk-core-sounds-${lang}/core-sounds-${lang}.txt.gz`;

/**
 * One language's sample (`id`: the language code, or code-engine where a language has two). `engine` says
 * how it is voiced; `text` is what is said, and what the error rate is measured against (for Chinese,
 * `spoken` is the pinyin espeak-ng reads). `script: 'chars'` = no spaces between words (error by characters).
 * @typedef {{ id: string, lang: string, name: string, engine: 'festival' | 'espeak-ng' | 'asterisk', voice: string,
 *   encoding?: string, text: string, spoken?: string, prompts?: string[], script?: 'chars', packages: string[] }} LanguageSample
 */

/** @type {LanguageSample[]} */
export const LANGUAGE_SAMPLES = [
  { id: 'es', lang: 'es', name: 'Spanish', engine: 'asterisk', voice: 'es_MX_f_Allison', packages: ['asterisk-core-sounds-es-wav', 'asterisk-core-sounds-es'],
    prompts: ['conf-onlyperson', 'vm-mailboxfull', 'pbx-invalid', 'demo-thanks'], text: '' },
  { id: 'fr', lang: 'fr', name: 'French', engine: 'asterisk', voice: 'fr_CA_f_June', packages: ['asterisk-core-sounds-fr-wav', 'asterisk-core-sounds-fr'],
    prompts: ['conf-onlyperson', 'vm-mailboxfull', 'pbx-invalid', 'demo-thanks'], text: '' },
  { id: 'it', lang: 'it', name: 'Italian', engine: 'asterisk', voice: 'it_IT_m_Carlo', packages: ['asterisk-core-sounds-it-wav', 'asterisk-core-sounds-it'],
    prompts: ['conf-onlyperson', 'vm-mailboxfull', 'demo-thanks', 'conf-invalid'], text: '' },
  { id: 'ru', lang: 'ru', name: 'Russian', engine: 'asterisk', voice: 'ru_RU_f_IvrvoiceRU', packages: ['asterisk-core-sounds-ru-wav', 'asterisk-core-sounds-ru'],
    prompts: ['vm-mailboxfull', 'pbx-invalid', 'conf-invalid', 'transfer'], text: '' },
  { id: 'it-festival', lang: 'it', name: 'Italian', engine: 'festival', voice: 'voice_lp_diphone', encoding: 'ISO-8859-1', packages: ['festvox-italp16k'],
    text: 'Oggi il tempo è bello e il sole splende sulla città. Andiamo al mercato a comprare frutta e verdura. La sera mangiamo insieme ai nostri amici.' },
  { id: 'ca', lang: 'ca', name: 'Catalan', engine: 'festival', voice: 'voice_upc_ca_ona_hts', encoding: 'ISO-8859-15', packages: ['festvox-ca-ona-hts'],
    text: 'Avui fa un dia molt bonic i el sol brilla sobre la ciutat. Anirem al mercat a comprar fruita i verdura. Al vespre sopem amb els nostres amics.' },
  { id: 'cs', lang: 'cs', name: 'Czech', engine: 'festival', voice: 'voice_czech_ph', encoding: 'ISO-8859-2', packages: ['festvox-czech-ph'],
    text: 'Dnes je krásný den a slunce svítí nad městem. Půjdeme na trh koupit ovoce a zeleninu. Večer budeme jíst s našimi přáteli.' },
  { id: 'fi', lang: 'fi', name: 'Finnish', engine: 'festival', voice: 'voice_suo_fi_lj_diphone', encoding: 'ISO-8859-1', packages: ['festvox-suopuhe-lj'],
    text: 'Tänään on kaunis päivä ja aurinko paistaa. Menemme torille ostamaan hedelmiä ja vihanneksia. Illalla syömme yhdessä ystävien kanssa.' },
  { id: 'ru-festival', lang: 'ru', name: 'Russian', engine: 'festival', voice: 'voice_msu_ru_nsh_clunits', encoding: 'UTF-8', packages: ['festvox-ru'],
    text: 'Сегодня хорошая погода и солнце светит над городом. Мы пойдём на рынок купить фрукты и овощи. Вечером мы ужинаем вместе с друзьями.' },
  { id: 'hi', lang: 'hi', name: 'Hindi', engine: 'festival', voice: 'voice_hindi_NSK_diphone', encoding: 'UTF-8', packages: ['festvox-hi-nsk', 'festival-hi'],
    text: 'आज मौसम बहुत अच्छा है और सूरज चमक रहा है। हम बाज़ार जाकर फल और सब्ज़ियाँ खरीदेंगे। शाम को हम अपने दोस्तों के साथ खाना खाएंगे।' },
  { id: 'mr', lang: 'mr', name: 'Marathi', engine: 'festival', voice: 'voice_marathi_NSK_diphone', encoding: 'UTF-8', packages: ['festvox-mr-nsk', 'festival-mr'],
    text: 'आज हवामान खूप छान आहे आणि सूर्य चमकत आहे. आम्ही बाजारात फळे आणि भाज्या घ्यायला जाणार आहोत. संध्याकाळी आम्ही मित्रांसोबत जेवण करू.' },
  { id: 'te', lang: 'te', name: 'Telugu', engine: 'festival', voice: 'voice_telugu_NSK_diphone', encoding: 'UTF-8', packages: ['festvox-te-nsk', 'festival-te'],
    text: 'ఈ రోజు వాతావరణం చాలా బాగుంది. మేము పండ్లు మరియు కూరగాయలు కొనడానికి మార్కెట్‌కు వెళ్తాము. సాయంత్రం మేము స్నేహితులతో కలిసి భోజనం చేస్తాము.' },
  { id: 'de', lang: 'de', name: 'German', engine: 'espeak-ng', voice: 'de', packages: ['espeak-ng'],
    text: 'Heute ist ein schöner Tag und die Sonne scheint über der Stadt. Wir gehen auf den Markt, um Obst und Gemüse zu kaufen. Am Abend essen wir zusammen mit unseren Freunden.' },
  // Debian's espeak-ng has only the small Mandarin dictionary: characters missing from it are read out as
  // English letters and digits ("jin one"). Read from tone-numbered pinyin instead, with the voice for it.
  { id: 'zh', lang: 'zh', name: 'Chinese', engine: 'espeak-ng', voice: 'cmn-latn-pinyin', script: 'chars', packages: ['espeak-ng'],
    text: '今天天气很好，阳光照在城市上。我们去市场买水果和蔬菜。晚上我们和朋友一起吃饭。',
    spoken: 'jin1 tian1 tian1 qi4 hen3 hao3, yang2 guang1 zhao4 zai4 cheng2 shi4 shang4. wo3 men5 qu4 shi4 chang3 mai3 shui3 guo3 he2 shu1 cai4. ' +
      'wan3 shang4 wo3 men5 he2 peng2 you5 yi4 qi3 chi1 fan4.' },
  // espeak-ng reads kana only, so the text is written in kana (ordinary Japanese, as in a children's book).
  { id: 'ja', lang: 'ja', name: 'Japanese', engine: 'espeak-ng', voice: 'ja', script: 'chars', packages: ['espeak-ng'],
    text: 'きょうはとてもいいてんきです。わたしたちはいちばへくだものとやさいをかいにいきます。よるはともだちといっしょにばんごはんをたべます。' },
  { id: 'ar', lang: 'ar', name: 'Arabic', engine: 'espeak-ng', voice: 'ar', packages: ['espeak-ng'],
    text: 'الطقس جميل اليوم والشمس مشرقة فوق المدينة. نذهب إلى السوق لشراء الفواكه والخضروات. في المساء نتناول العشاء مع أصدقائنا.' },
  { id: 'he', lang: 'he', name: 'Hebrew', engine: 'espeak-ng', voice: 'he', packages: ['espeak-ng'],
    text: 'היום מזג האוויר יפה והשמש זורחת מעל העיר. אנחנו הולכים לשוק לקנות פירות וירקות. בערב אנחנו אוכלים ארוחת ערב עם החברים שלנו.' },
];

/** The sample with this id ("it", "it-festival"). */
export function languageSample(id) {
  const s = LANGUAGE_SAMPLES.find((x) => x.id === id);
  if (!s) throw new Error(`no speech sample "${id}"`);
  return s;
}

/** A prompt's text as the package's core-sounds-LANG.txt gives it ("name: text"). */
export function asteriskPromptText(lang, name) {
  const file = ASTERISK_TEXT(lang);
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  const line = lines.find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`${file} has no text for the prompt "${name}"`);
  return line.slice(name.length + 1).trim();
}

/** The text spoken in `sample` (for prompts: read from the package). */
export function sampleText(sample) {
  if (sample.engine !== 'asterisk') return sample.text;
  return (sample.prompts ?? []).map((p) => asteriskPromptText(sample.lang, p)).join(' ');
}

function voice(sample, rawWav, work) {
  if (sample.engine === 'festival') {
    // Festival's voices read their own 8-bit encodings (Latin-1/-2/-15); the Indic and Russian ones UTF-8.
    const txt = path.join(work, 'in.txt');
    writeFileSync(txt, sample.text);
    if (sample.encoding && sample.encoding !== 'UTF-8') execFileSync('iconv', ['-f', 'UTF-8', '-t', sample.encoding, txt, '-o', `${txt}.enc`]);
    else renameSync(txt, `${txt}.enc`);
    // The Indic NSK voices never choose an intonation method and inherit it from whichever voice Festival
    // loaded by default (with festvox-te-nsk installed that is Telugu, which sets none: "Feature Int_Method
    // not defined" and an empty file). A flat male contour for them; voices that choose their own overwrite it.
    const select = `(begin (Parameter.set 'Int_Method 'Simple) (set! int_simple_params '((f0_mean 110) (f0_std 15))) (${sample.voice}))`;
    execFileSync('text2wave', ['-eval', select, `${txt}.enc`, '-o', rawWav], { stdio: ['ignore', 'ignore', 'pipe'] });
    return [rawWav];
  }
  if (sample.engine === 'espeak-ng') {
    // A little slower than espeak-ng's default 175 words a minute: its robotic voice is hard enough.
    execFileSync('espeak-ng', ['-v', sample.voice, '-s', '150', '-w', rawWav, sample.spoken ?? sample.text], { stdio: ['ignore', 'ignore', 'pipe'] });
    return [rawWav];
  }
  return (sample.prompts ?? []).map((p) => {
    const f = path.join(ASTERISK_SOUNDS, sample.voice, `${p}.wav`);
    if (!existsSync(f)) throw new Error(`${f} is missing: install ${sample.packages.join(' ')}`);
    return f;
  });
}

/**
 * 16 kHz mono WAV of `sample` with half a second of silence around and between its parts; made once
 * per machine (cached under CACHE_DIR by voice and text).
 * @param {LanguageSample} sample
 * @param {{ ffmpeg?: string }} [opts]
 */
export function languageSpeech(sample, { ffmpeg = 'ffmpeg' } = {}) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const key = createHash('sha1').update(JSON.stringify({ VERSION, GAP_SEC, sample, text: sampleText(sample) })).digest('hex').slice(0, 12);
  const out = path.join(CACHE_DIR, `${sample.id}-${key}.wav`);
  if (existsSync(out)) return out;
  const work = path.join(CACHE_DIR, `${sample.id}-${key}.${process.pid}.work`);
  mkdirSync(work, { recursive: true });
  try {
    const parts = voice(sample, path.join(work, 'raw.wav'), work);
    const inputs = parts.flatMap((p) => ['-i', p]);
    const chains = parts.map((_, i) => `[${i}:a]aresample=16000,aformat=sample_fmts=s16:channel_layouts=mono,apad=pad_dur=${GAP_SEC}[a${i}]`).join(';');
    const concat = `${parts.map((_, i) => `[a${i}]`).join('')}concat=n=${parts.length}:v=0:a=1,adelay=${GAP_SEC * 1000}:all=1[out]`;
    const tmp = path.join(work, 'out.wav');
    execFileSync(ffmpeg, ['-nostdin', '-v', 'error', '-y', ...inputs, '-filter_complex', `${chains};${concat}`, '-map', '[out]',
      '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', tmp], { stdio: ['ignore', 'ignore', 'pipe'] });
    // Renamed into place last: a run killed half way never leaves a file that looks finished.
    renameSync(tmp, out);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return out;
}

/** Seconds of audio in a 16 kHz mono 16-bit WAV made by languageSpeech. */
export function wavSeconds(file) {
  const b = readFileSync(file);
  return (b.length - 44) / 32000;
}

// --- Scoring -------------------------------------------------------------------------------------------

/**
 * Tokens to compare: lower case, punctuation dropped, accents on Latin letters folded (the Spanish prompt
 * texts are written without them: "numero", "contrasena"), ё as е, and, for scripts without spaces, one token per
 * character. Marks on other scripts (Devanagari vowel signs) are letters there and are kept.
 * @param {string} text
 * @param {'words' | 'chars'} unit
 */
export function scoringTokens(text, unit = 'words') {
  const folded = text.normalize('NFKD').replace(/(\p{Script=Latin})\p{M}+/gu, '$1').normalize('NFC').toLowerCase()
    // Russian writes ё as е more often than not (the prompt texts do: "еще").
    .replace(/ё/g, 'е')
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{M}\p{N}'\s]+/gu, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, ' ');
  if (unit === 'chars') return [...folded.replace(/\s+/g, '')];
  // "l'indicatif" and "d'avoir": Whisper and the prompt texts agree on the apostrophe, so it stays inside.
  return folded.split(/\s+/).filter(Boolean);
}

/** Levenshtein distance between token lists over the reference length (WER for words, CER for chars). */
export function errorRate(reference, hypothesis, unit = 'words') {
  const ref = scoringTokens(reference, unit), hyp = scoringTokens(hypothesis, unit);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[hyp.length] / ref.length;
}
