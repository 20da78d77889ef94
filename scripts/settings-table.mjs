// Prints the README's Configuration table from the one declaration of the SHORTS_* settings
// (src/settings.ts; run `npm run build` first). test/settings.test.ts checks the README against it.
import { settingsTable } from '../dist/settings.js';

console.log(settingsTable());
