// `shorts studio` (issue 25): the web studio on this machine. The same server as `shorts serve`, on loopback
// only, over the local data dir; its sign-in is a one-time link (printed, and opened in a browser) whose session
// is the local client's account: not metered, and the requests the CLI ran here show in the studio's list.
import { spawn } from 'node:child_process';
import { localAccount } from '../../client/local-client.js';
import { dataDir } from '../../client/data-dir.js';
import { startServer } from '../../server/serve.js';
import { CliError, EXIT } from '../cli-error.js';
import { note } from '../output.js';
import { untilStopped } from './serve.js';

export interface StudioFlags { host: string; port: string; open: boolean }

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Opens `url` in the desktop's browser when there is one; never fails (the link is printed anyway). */
function openBrowser(url: string): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]]
    : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]]
      : ['xdg-open', [url]];
  // Without a display (a server, an SSH session) there is no browser to open.
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch { /* the printed link is enough */ }
}

export async function studioCommand(flags: StudioFlags): Promise<number> {
  if (!LOOPBACK.has(flags.host)) {
    throw new CliError(`--host must be a loopback address (127.0.0.1, localhost or ::1): the local studio signs in without a key; use \`shorts serve\` to serve others, got "${flags.host}"`, EXIT.usage);
  }
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got "${flags.port}"`, EXIT.usage);
  const stamp = (line: string) => note(`${new Date().toISOString()} ${line}`);
  const host = flags.host === 'localhost' ? '127.0.0.1' : flags.host.replace(/^\[|\]$/g, '');
  const running = await startServer({ host, port, dataDir: dataDir(), log: stamp, localStudio: localAccount() });
  const link = `${running.url}/studio/sign-in/${running.sessions.issueSignInLink()}`;
  note(`shorts studio listening on ${running.url}`);
  // Scripts and tests read this line; the link works once, within a minute.
  note(`sign in: ${link}`);
  if (flags.open) openBrowser(link);
  await untilStopped(running, stamp);
  return EXIT.ok;
}
