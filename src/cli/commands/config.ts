// `shorts config set|get|unset`: the remote instance and API key saved for later commands, so
// `--remote`/`--api-key` need not be typed every time. The key is never printed in full.
import type { Command } from 'commander';
import { apiBaseUrl } from '../../client/remote-client.js';
import { CliError, EXIT } from '../cli-error.js';
import { Settings, SETTING_NAMES, isSettingName, maskKey, type SettingName } from '../config.js';
import { note, printJson } from '../output.js';

function settingName(name: string): SettingName {
  if (!isSettingName(name)) throw new CliError(`unknown setting "${name}": use ${Object.keys(SETTING_NAMES).join(' or ')}`, EXIT.usage);
  return name;
}

export async function configSetCommand(settings: Settings, name: string, value: string): Promise<number> {
  const key = settingName(name);
  if (key === 'remote') {
    try {
      apiBaseUrl(value);
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.usage);
    }
  }
  if (value.trim() === '') throw new CliError(`${key} cannot be empty; use \`shorts config unset ${key}\` to forget it`, EXIT.usage);
  settings.set(key, value.trim());
  note(`saved ${key} in ${settings.path}`);
  return EXIT.ok;
}

export async function configGetCommand(settings: Settings, name: string | undefined, flags: { json?: boolean }): Promise<number> {
  const names = name ? [settingName(name)] : (Object.keys(SETTING_NAMES) as SettingName[]);
  const shown = (k: SettingName): string | null => {
    const v = settings.get(k);
    if (v === undefined) return null;
    return k === 'api-key' ? maskKey(v) : v;
  };
  const values = Object.fromEntries(names.map((k) => [k, shown(k)]));
  if (flags.json) printJson(values);
  else if (name) {
    const v = values[name];
    if (v) process.stdout.write(`${v}\n`);
  } else {
    for (const [k, v] of Object.entries(values)) process.stdout.write(`${k}: ${v ?? '(not set)'}\n`);
  }
  // Like `git config`: asking for one setting that is not there is a failure scripts can test.
  return name && values[name] === null ? EXIT.failure : EXIT.ok;
}

export async function configUnsetCommand(settings: Settings, name: string): Promise<number> {
  settings.unset(settingName(name));
  return EXIT.ok;
}

export function registerConfigCommand(program: Command, setExit: (code: number) => void = () => {},
  openSettings: () => Settings = () => new Settings()): Command {
  const run = async (fn: (s: Settings) => Promise<number>) => setExit(await fn(openSettings()));
  const config = program.command('config').description('save the remote instance and API key for later commands');
  config.command('set <name> <value>').description('save a setting: remote (URL of a `shorts serve`) or api-key')
    .action((name: string, value: string) => run((s) => configSetCommand(s, name, value)));
  config.command('get [name]').description('show saved settings (the API key only by its prefix)').option('--json', 'JSON output')
    .action((name: string | undefined, f: { json?: boolean }) => run((s) => configGetCommand(s, name, f)));
  config.command('unset <name>').description('forget a saved setting')
    .action((name: string) => run((s) => configUnsetCommand(s, name)));
  return config;
}
