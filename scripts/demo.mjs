#!/usr/bin/env node
// `npm run demo`: the main job end to end, locally, on the sample that ships in assets/.
// Writes the clips and request.json to ./demo-out. On machines without a model hub, point
// SHORTS_WHISPER_MODEL (and SHORTS_WHISPER_MULTILINGUAL_MODEL) at ggml files; beside this workplace's checkout
// they are picked up automatically.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
const shared = path.resolve(root, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');
if (!env.SHORTS_WHISPER_MODEL && existsSync(shared)) env.SHORTS_WHISPER_MODEL = shared;
// Without --language a local file's language is detected, which takes the multilingual model.
const sharedMultilingual = path.resolve(root, '..', 'shared', 'models', 'ggml-base-q5_1.bin');
if (!env.SHORTS_WHISPER_MULTILINGUAL_MODEL && existsSync(sharedMultilingual)) env.SHORTS_WHISPER_MULTILINGUAL_MODEL = sharedMultilingual;
env.SHORTS_DATA_DIR ??= path.join(root, '.shorts-data');

const args = [path.join(root, 'bin', 'shorts'), 'create', '--file', path.join(root, 'assets', 'sample', 'talk.mp4'),
  '--start', '0', '--end', '80', '--max-shorts', '3', '--preferred-length', 'under30sec', '--out', path.join(root, 'demo-out')];
console.error(`$ shorts ${args.slice(1).map((a) => path.relative(root, a) || a).join(' ')}`);
const r = spawnSync(process.execPath, args, { stdio: 'inherit', env });
process.exit(r.status ?? 1);
