// `shorts db migrate`: the operator's schema step before (or besides) starting processes on a new version.
import type { Command } from 'commander';
import { dataDir } from '../../client/data-dir.js';
import { setting } from '../../settings.js';
import { CliError, EXIT } from '../cli-error.js';
import { printJson } from '../output.js';

export async function dbMigrateCommand(flags: { json?: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const url = setting('SHORTS_DATABASE_URL', env);
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new CliError('SHORTS_DATABASE_URL must be a postgresql:// URL (postgresql://user:password@host:port/database)', EXIT.usage);
  }
  let outcome;
  try {
    // Loaded on use: node-postgres would slow the start of every other command.
    const { migrateStore } = await import('../../app/migrate-store.js');
    outcome = await migrateStore(dataDir(env), url, { queuesInDatabase: setting('SHORTS_REDIS_URL', env) === undefined });
  } catch (e) {
    const what = url ? 'the PostgreSQL database of SHORTS_DATABASE_URL' : 'the SQLite store of the data dir';
    throw new CliError(`could not migrate ${what}: ${(e as Error).message || String(e)}`);
  }
  if (flags.json) {
    printJson(outcome);
    return EXIT.ok;
  }
  const name = outcome.engine === 'postgresql' ? `PostgreSQL ${outcome.where}` : `SQLite ${outcome.where}`;
  process.stdout.write(outcome.from === outcome.to
    ? `${name}: up to date (schema version ${outcome.to})\n`
    : `${name}: migrated from schema version ${outcome.from} to ${outcome.to}\n`);
  return EXIT.ok;
}

export function registerDbCommand(program: Command, setExit: (code: number) => void): Command {
  const db = program.command('db').description('the store behind serve and local runs (SHORTS_DATABASE_URL, else the data dir\'s SQLite file)');
  db.command('migrate').description('create or upgrade the store\'s schema; idempotent, and safe while other processes migrate too')
    .option('--json', 'print {"engine", "where", "from", "to"}')
    .action(async (f: { json?: boolean }) => setExit(await dbMigrateCommand(f)));
  return db;
}
