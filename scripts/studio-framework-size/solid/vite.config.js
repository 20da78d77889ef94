import { fileURLToPath } from 'node:url';
import solid from 'vite-plugin-solid';
import { config } from '../vite.shared.js';

export default config(fileURLToPath(new URL('.', import.meta.url)), solid(), 'jsx');
