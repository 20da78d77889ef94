// `shorts config` on a temporary settings folder, and which client a command gets: flags > env >
// saved settings > local.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerConfigCommand } from '../src/cli/commands/config.js';
import { Settings, maskKey, settingsDir } from '../src/cli/config.js';
import { CliError } from '../src/cli/cli-error.js';
import { makeClient, resolveConnection } from '../src/cli/connection.js';
import { LocalClient } from '../src/client/local-client.js';
import { RemoteClient } from '../src/client/remote-client.js';

const KEY = 'sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg';

function tempEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { SHORTS_CONFIG_DIR: mkdtempSync(path.join(os.tmpdir(), 'shorts-config-')), ...extra };
}

/** Runs `shorts config ...` through commander, as the CLI does; returns the exit code and stdout. */
async function config(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; out: string }> {
  let code = 0;
  let out = '';
  const program = new Command('shorts').exitOverride();
  registerConfigCommand(program, (c) => { code = c; }, () => new Settings(env));
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { out += String(chunk); return true; });
  const note = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await program.parseAsync(['node', 'shorts', 'config', ...args]);
  } finally {
    write.mockRestore();
    note.mockRestore();
  }
  return { code, out };
}

describe('shorts config', () => {
  it('set, get and unset the remote and the key in SHORTS_CONFIG_DIR', async () => {
    const env = tempEnv();
    expect((await config(env, 'set', 'remote', 'https://shorts.example.com/api/v1')).code).toBe(0);
    expect((await config(env, 'set', 'api-key', KEY)).code).toBe(0);
    expect(await config(env, 'get', 'remote')).toEqual({ code: 0, out: 'https://shorts.example.com/api/v1\n' });
    const file = path.join(env.SHORTS_CONFIG_DIR!, 'config.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ remote: 'https://shorts.example.com/api/v1', apiKey: KEY });
    expect(await config(env, 'unset', 'remote')).toEqual({ code: 0, out: '' });
    expect(await config(env, 'get', 'remote')).toEqual({ code: 1, out: '' });
    expect(new Settings(env).all()).toEqual({ remote: undefined, apiKey: KEY });
  });

  it('writes the settings file with mode 0600', async () => {
    const env = tempEnv();
    await config(env, 'set', 'api-key', KEY);
    expect(statSync(path.join(env.SHORTS_CONFIG_DIR!, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('never prints the whole key: its prefix and an ellipsis', async () => {
    const env = tempEnv();
    await config(env, 'set', 'api-key', KEY);
    await config(env, 'set', 'remote', 'http://127.0.0.1:8080');
    const one = await config(env, 'get', 'api-key');
    expect(one.out).toBe('sk_live_AbCd…\n');
    const all = await config(env, 'get');
    expect(all.out).toBe('remote: http://127.0.0.1:8080\napi-key: sk_live_AbCd…\n');
    expect(all.out).not.toContain(KEY);
    expect(JSON.parse((await config(env, 'get', '--json')).out)).toEqual({ remote: 'http://127.0.0.1:8080', 'api-key': 'sk_live_AbCd…' });
    expect(maskKey('abcdef')).toBe('ab…');
  });

  it('refuses an unknown setting and a remote that is not an http(s) URL (usage, exit 2)', async () => {
    const env = tempEnv();
    await expect(config(env, 'set', 'colour', 'blue')).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/unknown setting "colour"/) });
    await expect(config(env, 'set', 'remote', 'ftp://example.com')).rejects.toBeInstanceOf(CliError);
    await expect(config(env, 'set', 'remote', 'ftp://example.com')).rejects.toMatchObject({ exitCode: 2 });
  });

  it('lives in SHORTS_CONFIG_DIR, else SHORTS_DATA_DIR, else the per-user folder', () => {
    expect(settingsDir({ SHORTS_CONFIG_DIR: '/tmp/a', SHORTS_DATA_DIR: '/tmp/b' })).toBe('/tmp/a');
    expect(settingsDir({ SHORTS_DATA_DIR: '/tmp/b' })).toBe('/tmp/b');
    expect(settingsDir({})).toBeUndefined();
  });
});

describe('client selection', () => {
  const saved = { remote: 'http://saved.example:8080', apiKey: 'sk_saved' };
  const env = { SHORTS_REMOTE: 'http://env.example:8080/api/v1', SHORTS_API_KEY: 'sk_env' };

  it('flags win over the environment, which wins over saved settings', () => {
    expect(resolveConnection({ remote: 'http://flag.example', apiKey: 'sk_flag' }, env, saved))
      .toEqual({ mode: 'remote', baseUrl: 'http://flag.example/api/v1', apiKey: 'sk_flag', from: 'flag' });
    expect(resolveConnection({}, env, saved))
      .toEqual({ mode: 'remote', baseUrl: 'http://env.example:8080/api/v1', apiKey: 'sk_env', from: 'env' });
    expect(resolveConnection({}, {}, saved))
      .toEqual({ mode: 'remote', baseUrl: 'http://saved.example:8080/api/v1', apiKey: 'sk_saved', from: 'config' });
    expect(resolveConnection({}, {}, {})).toEqual({ mode: 'local' });
  });

  it('takes each value from the first place that has it', () => {
    expect(resolveConnection({ remote: 'http://flag.example' }, { SHORTS_API_KEY: 'sk_env' }, {}))
      .toMatchObject({ baseUrl: 'http://flag.example/api/v1', apiKey: 'sk_env' });
    expect(resolveConnection({ apiKey: 'sk_flag' }, {}, saved)).toMatchObject({ baseUrl: 'http://saved.example:8080/api/v1', apiKey: 'sk_flag' });
  });

  it('sends a saved key only to the saved remote', () => {
    expect(resolveConnection({ remote: 'http://saved.example:8080/api/v1/' }, {}, saved)).toMatchObject({ apiKey: 'sk_saved' });
    expect(() => resolveConnection({ remote: 'http://other.example' }, {}, saved)).toThrow(/an API key is needed for --remote/);
    expect(resolveConnection({ remote: 'http://other.example' }, {}, { apiKey: 'sk_saved' })).toMatchObject({ apiKey: 'sk_saved' });
  });

  it('a remote without a key is a usage error (exit 2)', () => {
    try {
      resolveConnection({ remote: 'http://flag.example' }, {}, {});
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CliError);
      expect(e).toMatchObject({ exitCode: 2, message: 'an API key is needed for --remote (use --api-key, SHORTS_API_KEY or `shorts config set api-key`)' });
    }
  });

  it('a remote that is not a URL is a usage error', () => {
    expect(() => resolveConnection({ remote: 'gopher://x' }, {}, {})).toThrow(CliError);
  });

  describe('makeClient', () => {
    const opened: { close(): void }[] = [];
    let base: NodeJS.ProcessEnv;
    beforeEach(() => {
      base = tempEnv({ SHORTS_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'shorts-data-')) });
    });
    afterEach(() => {
      for (const c of opened.splice(0)) c.close();
    });
    const make = (flags: { remote?: string; apiKey?: string }, env: NodeJS.ProcessEnv) => {
      const c = makeClient(flags, env);
      opened.push(c);
      return c;
    };

    it('is local with nothing configured', () => {
      const c = make({}, base);
      expect(c).toBeInstanceOf(LocalClient);
      expect(c.mode).toBe('local');
    });

    it('uses the saved settings, then the environment, then the flags', () => {
      const settings = new Settings(base);
      settings.set('remote', 'http://saved.example:8080');
      settings.set('api-key', 'sk_saved');
      const fromConfig = make({}, base);
      expect(fromConfig).toBeInstanceOf(RemoteClient);
      expect((fromConfig as RemoteClient).baseUrl).toBe('http://saved.example:8080/api/v1');
      const fromEnv = make({}, { ...base, SHORTS_REMOTE: 'http://env.example', SHORTS_API_KEY: 'sk_env' });
      expect((fromEnv as RemoteClient).baseUrl).toBe('http://env.example/api/v1');
      const fromFlags = make({ remote: 'http://flag.example/api/v1', apiKey: 'sk_flag' }, { ...base, SHORTS_REMOTE: 'http://env.example' });
      expect((fromFlags as RemoteClient).baseUrl).toBe('http://flag.example/api/v1');
    });

    it('refuses a SHORTS_POLL_INTERVAL_MS that is not a whole number', () => {
      expect(() => make({}, { ...base, SHORTS_REMOTE: 'http://env.example', SHORTS_API_KEY: 'k', SHORTS_POLL_INTERVAL_MS: 'soon' })).toThrow(/SHORTS_POLL_INTERVAL_MS/);
    });
  });
});
