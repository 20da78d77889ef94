// Saved CLI settings (conf): the remote instance and its API key. The file holds a secret, so conf
// writes it with mode 0600 (and we tighten a file an older version left readable). Where it lives:
// SHORTS_CONFIG_DIR, else SHORTS_DATA_DIR (all local state in one folder: tests and profiles stay
// apart from the real home), else conf's per-user folder, the same one dataDir() uses.
import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { setting } from '../settings.js';

export interface SavedSettings { remote?: string; apiKey?: string }

/** The names `shorts config` accepts, and the field each is stored under. */
export const SETTING_NAMES = { remote: 'remote', 'api-key': 'apiKey' } as const;
export type SettingName = keyof typeof SETTING_NAMES;

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTING_NAMES, name);
}

export function settingsDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = setting('SHORTS_CONFIG_DIR', env) ?? setting('SHORTS_DATA_DIR', env);
  return dir ? path.resolve(dir) : undefined;
}

export class Settings {
  private readonly conf: Conf<SavedSettings>;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cwd = settingsDir(env);
    this.conf = new Conf<SavedSettings>({
      projectName: 'shortwright',
      projectSuffix: '',
      configName: 'config',
      configFileMode: 0o600,
      ...(cwd ? { cwd } : {}),
    });
  }

  get path(): string { return this.conf.path; }

  get(name: SettingName): string | undefined {
    const value = this.conf.get(SETTING_NAMES[name]);
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  all(): SavedSettings {
    return { remote: this.get('remote'), apiKey: this.get('api-key') };
  }

  set(name: SettingName, value: string): void {
    this.conf.set(SETTING_NAMES[name], value);
    // configFileMode applies when conf creates the file; a file made earlier (or by hand) keeps its
    // mode, and it is about to hold a key.
    chmodSync(this.conf.path, 0o600);
  }

  unset(name: SettingName): void {
    if (existsSync(this.conf.path)) this.conf.delete(SETTING_NAMES[name]);
  }
}

/** Enough of a key to recognise it (the prefix `shorts keys list` shows), never the whole secret. */
export function maskKey(key: string): string {
  return `${key.slice(0, Math.min(12, Math.floor(key.length / 3)))}…`;
}
