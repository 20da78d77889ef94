#!/usr/bin/env node
// Renders the caption templates' preview images (thumbnail PNG, preview PNG, animated GIF) into
// assets/templates: each template is rendered through the real renderer on 0-6 s of the demo sample
// (assets/sample/talk.mp4), captioned with the words the real transcriber hears there.
// `npm run previews` (builds first). Model: SHORTS_WHISPER_MODEL, else ../shared/models/ggml-tiny.en-q8_0.bin
// beside the repository when present, else tiny.en downloaded into the data dir.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { dataDir } = await import(path.join(ROOT, 'dist', 'client', 'data-dir.js'));
const { TEMPLATES } = await import(path.join(ROOT, 'dist', 'catalog', 'templates.js'));
const { renderTemplatePreview, templatesAssetsDir, transcribePreviewSample } = await import(path.join(ROOT, 'dist', 'pipeline', 'captions', 'template-previews.js'));

const shared = path.resolve(ROOT, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');
const model = process.env.SHORTS_WHISPER_MODEL || (existsSync(shared) ? shared : undefined);
const only = process.argv.slice(2);
const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-previews-'));
try {
  const sample = await transcribePreviewSample({ dataDir: dataDir(), model });
  console.log(`sample: ${sample.words.map((w) => w.text).join(' ')}`);
  const outDir = templatesAssetsDir();
  for (const t of TEMPLATES) {
    if (only.length && !only.includes(t.name)) continue;
    const files = await renderTemplatePreview(t, sample, outDir, work);
    const kb = (f) => `${Math.round(statSync(f).size / 1024)} KB`;
    console.log(`${t.name}: ${path.basename(files.thumbnail)} ${kb(files.thumbnail)}, ${path.basename(files.preview)} ${kb(files.preview)}, ${path.basename(files.gif)} ${kb(files.gif)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
