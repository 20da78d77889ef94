import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { config } from '../vite.shared.js';

export default config(fileURLToPath(new URL('.', import.meta.url)), preact(), 'jsx');
