// `shorts posts run`: local mode's publisher. Publishes the local account's posts that are due now (and
// any a killed run left half-way, resumed from their saved progress) and waits for them; --watch keeps
// running like serve's scheduler until Ctrl-C, which hands unfinished uploads back for the next run.
// Loaded on use: the connectors are needed by no other command.
import type { LocalClient } from '../../client/local-client.js';
import { postObject } from '../../ports/post-store.js';
import { EXIT } from '../cli-error.js';
import { note, printJson, printTable } from '../output.js';

export async function runLocalPosts(client: LocalClient, flags: { watch?: boolean; json?: boolean }): Promise<number> {
  const { scheduler, posts, automation } = client.engine.publishing({ scope: { kind: 'local' }, log: note });
  if (flags.watch) {
    scheduler.start();
    note('publishing posts as they fall due; Ctrl-C stops (an upload in progress resumes on the next run)');
    // The scheduler's timers do not hold the process open (serve has its server for that): this does.
    const keepAlive = setInterval(() => {}, 3_600_000);
    await new Promise<void>((resolve) => {
      const stop = () => { clearInterval(keepAlive); void scheduler.stop().then(resolve); };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return EXIT.ok;
  }
  const made = await automation!.sweep('local');
  if (made.length) note(`automation: ${made.length} post(s) scheduled`);
  const ids = await scheduler.runDue();
  const records = await Promise.all(ids.map(async (id) => (await posts.get(id))!));
  const worked = records.map(postObject);
  if (flags.json) printJson({ posts: worked });
  else if (worked.length === 0) note('no posts are due');
  else printTable(['id', 'platform', 'account', 'status', 'url / error / next attempt'], worked.map((p, i) => {
    const record = records[i]!;
    const detail = p.status === 'published' ? p.url ?? '(no public URL)' : p.status === 'failed' ? `${p.errorCode}: ${p.error}`
      : record.nextAttemptAt ? `retry at ${record.nextAttemptAt}` : '';
    return [p.id, p.platform, p.account.handle, p.status, detail];
  }));
  const next = await posts.nextDueAt({ kind: 'local' });
  if (!flags.json && next) note(`next post due at ${next}: run \`shorts posts run\` again then, or keep \`shorts posts run --watch\` running`);
  return worked.some((p) => p.status === 'failed') ? EXIT.failure : EXIT.ok;
}
