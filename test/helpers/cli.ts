// Runs the real `bin/shorts` (built dist) as a child process, the way users and CI scripts do.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'shorts');
export const SAMPLE = path.join(ROOT, 'assets', 'sample', 'talk.mp4');

export interface CliResult { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** A fresh data dir and small, fast renders: resolution is not what these tests check. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SHORTS_DATA_DIR: extra.SHORTS_DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'shorts-cli-')),
    SHORTS_RENDER_SIZE: '270x480',
    SHORTS_X264_PRESET: 'ultrafast',
    ...extra,
  };
}

/** `detached` puts the CLI in its own process group, as a terminal does, so a test can Ctrl-C the group. */
export function startCli(args: string[], env: NodeJS.ProcessEnv, detached = false): { child: ChildProcess; done: Promise<CliResult>; stderrSoFar: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached });
  let stdout = '', stderr = '';
  child.stdout!.on('data', (b: Buffer) => { stdout += b.toString(); });
  child.stderr!.on('data', (b: Buffer) => { stderr += b.toString(); });
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, stderrSoFar: () => stderr };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return startCli(args, env).done;
}
