import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests select the Whisper model through configuration: SHORTS_WHISPER_MODEL if set (CI sets it),
// else the workplace's shared tiny.en q8_0 model beside the repository.
const models = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'shared', 'models');
const model = process.env.SHORTS_WHISPER_MODEL ?? path.join(models, 'ggml-tiny.en-q8_0.bin');
// Speech in other languages, language detection and the offline translate task use the multilingual model.
const multilingual = process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL ?? path.join(models, 'ggml-base-q5_1.bin');

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Media tests are CPU-heavy; two cores means two files at a time at most.
    maxWorkers: 2,
    env: { SHORTS_WHISPER_MODEL: path.resolve(model), SHORTS_WHISPER_MULTILINGUAL_MODEL: path.resolve(multilingual) },
  },
});
