// The package's own version (package.json beside dist/ and src/), read once: `shorts --version`, the MCP
// server's name, and anything else that reports what is running.
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function packageVersion(): string {
  if (version !== undefined) return version;
  try {
    version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    version = '0.0.0';
  }
  return version;
}
