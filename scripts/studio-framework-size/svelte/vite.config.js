import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { config } from '../vite.shared.js';

export default config(fileURLToPath(new URL('.', import.meta.url)), svelte(), 'svelte');
