// Entry point: the only try/catch. Maps errors to a readable line on stderr and an exit code
// (0 ok, 1 failure, 2 usage error, 130 interrupted); never prints a stack trace unless SHORTS_DEBUG=1.
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { CliError, EXIT } from './cli-error.js';
import { makeClient } from './connection.js';
import { ShortsError } from '../errors.js';
import { note } from './output.js';
import { setting } from '../settings.js';

export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram((flags) => makeClient(flags), (c) => { code = c; });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version are "errors" to commander but successes to the user
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof ShortsError) {
      note(`error (${e.code}): ${e.message}`);
      return e.exitCode;
    }
    if (e instanceof CliError) {
      note(`error: ${e.message}`);
      return e.exitCode;
    }
    if (e instanceof Error && e.name === 'ExitPromptError') return EXIT.interrupted;
    note(`error: ${e instanceof Error ? e.message : String(e)}`);
    if (setting('SHORTS_DEBUG') === '1' && e instanceof Error) note(e.stack ?? '');
    return EXIT.failure;
  }
}

// A reader that stops early (`shorts list --json | head -1`) closes the pipe: what is left to print has no one
// to read it, which is not the command's failure. Without a listener Node throws the EPIPE as an uncaught
// error with a stack; the command goes on (a create still writes its clips) and exits with its own code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

main(process.argv).then((code) => { process.exitCode = code; });
