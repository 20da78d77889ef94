import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests select the Whisper model through configuration: SHORTS_WHISPER_MODEL if set (CI sets it),
// else the workplace's shared tiny.en q8_0 model beside the repository.
const model = process.env.SHORTS_WHISPER_MODEL ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Media tests are CPU-heavy; two cores means two files at a time at most.
    maxWorkers: 2,
    env: { SHORTS_WHISPER_MODEL: path.resolve(model) },
  },
});
