// `shorts posts`: list (spec 4.6's filters), schedule, cancel, run (local mode's publisher) and the
// automation rules of connected accounts (issue 16). Local or --remote like every other command, except
// `run`: a `shorts serve` publishes its own posts.
import { Option, type Command } from 'commander';
import type { Query, ShortsClient } from '../../client/shorts-client.js';
import { postsClient, type AutomationRule } from '../../client/posts-client.js';
import type { PostObject } from '../../api/types.js';
import { LocalClient } from '../../client/local-client.js';
import { CliError, EXIT } from '../cli-error.js';
import { note, printJson, printPagination, printTable } from '../output.js';

type WithClient = (fn: (c: ShortsClient) => Promise<number>) => () => Promise<void>;
interface JsonFlag { json?: boolean }

const PLATFORM_CHOICES = ['video_site', 'photo_site', 'short_video_site'];

export async function postsListCommand(client: ShortsClient, flags: Query & JsonFlag): Promise<number> {
  const q: Query = {};
  for (const k of ['page', 'limit', 'status', 'platform', 'source', 'requestId', 'shortId', 'since', 'until', 'date'] as const) q[k] = flags[k];
  const r = await client.posts(q);
  if (flags.json) {
    printJson({ data: r });
    return EXIT.ok;
  }
  if (r.posts.length === 0) note('no posts');
  else printPosts(r.posts);
  printPagination(r.pagination);
  return EXIT.ok;
}

function printPosts(posts: PostObject[]): void {
  printTable(['id', 'platform', 'account', 'status', 'scheduled', 'published', 'url / error', 'title'], posts.map((p) => [
    p.id, p.platform, p.account.handle, p.status, p.scheduledAt, p.publishedAt, p.status === 'failed' ? `${p.errorCode}: ${p.error}` : p.url, p.title,
  ]));
}

function printPost(p: PostObject, flags: JsonFlag): void {
  if (flags.json) printJson(p);
  else printPosts([p]);
}

interface ScheduleFlags extends JsonFlag { platform: string; account?: string; handle?: string; at?: string; title?: string; description?: string }

async function scheduleCommand(client: ShortsClient, shortId: string, flags: ScheduleFlags): Promise<number> {
  const post = await postsClient(client).schedule({
    shortId, platform: flags.platform as PostObject['platform'], accountId: flags.account, handle: flags.handle, scheduledAt: flags.at,
    title: flags.title, description: flags.description,
  });
  printPost(post, flags);
  if (!flags.json && client.mode === 'local') note('local mode: `shorts posts run` publishes the posts that are due (--watch keeps publishing as they fall due)');
  return EXIT.ok;
}

function printRules(rules: AutomationRule[], flags: JsonFlag, one = false): void {
  if (flags.json) return printJson(one ? rules[0] : rules);
  if (rules.length === 0) return note('no automation rules');
  printTable(['id', 'account', 'platform', 'handle', 'min viral score', 'slots', 'timezone'], rules.map((r) => [
    r.id, r.accountId, r.platform, r.handle, r.minViralScore, r.slots.join(','), r.timezone,
  ]));
}

interface RunFlags extends JsonFlag { watch?: boolean; interval?: string }

async function runCommand(client: ShortsClient, flags: RunFlags): Promise<number> {
  if (!(client instanceof LocalClient))
    throw new CliError('`shorts posts run` publishes the posts of local mode; a remote `shorts serve` publishes its own at their time', EXIT.usage);
  const { runLocalPosts } = await import('./posts-run.js');
  return runLocalPosts(client, flags);
}

export function registerPostsCommand(program: Command, withClient: WithClient): void {
  // The list's flags belong to `posts` itself, and commander gives an option the parent knows (--platform,
  // --json) to the parent even when it comes after a subcommand: subcommands read theirs with optsWithGlobals().
  const posts = program.command('posts').description('social posts made from clips: list them (default), schedule, cancel, publish (local), automate')
    .option('--page <n>').option('--limit <n>')
    .addOption(new Option('--status <s>').choices(['scheduled', 'processing', 'published', 'failed', 'canceled']))
    .addOption(new Option('--platform <p>').choices(PLATFORM_CHOICES))
    .addOption(new Option('--source <s>').choices(['manual', 'automation']))
    .option('--request-id <id>').option('--short-id <id>').option('--since <iso>').option('--until <iso>')
    .addOption(new Option('--date <which>', 'which time since/until and the order use').choices(['scheduled', 'published']))
    .option('--json', 'JSON output')
    .action((f: Query & JsonFlag) => withClient((c) => postsListCommand(c, f))());

  posts.command('schedule <shortId>').description('schedule a clip on a connected account (now, or --at a time)')
    .addOption(new Option('--platform <p>', 'video_site, photo_site or short_video_site (required)').choices(PLATFORM_CHOICES))
    .option('--account <id>', 'the connected account\'s id (`shorts accounts list`)')
    .option('--handle <handle>', 'or its handle; neither: the only account connected on that platform')
    .option('--at <iso>', 'when, ISO 8601 with a time zone (e.g. 2026-12-01T18:00:00Z); default now')
    .option('--title <text>', 'video title (video_site) or caption; default the clip\'s title')
    .option('--description <text>', 'description; default the clip\'s generated description')
    .option('--json', 'JSON output')
    .action((shortId: string, _f: unknown, cmd: Command) => {
      const f = cmd.optsWithGlobals<ScheduleFlags>();
      if (!f.platform) throw new CliError('posts schedule: --platform is required (video_site, photo_site or short_video_site)', EXIT.usage);
      return withClient((c) => scheduleCommand(c, shortId, f))();
    });

  posts.command('cancel <postId>').description('cancel a scheduled post (not once it is being published)').option('--json', 'JSON output')
    .action((id: string, _f: unknown, cmd: Command) => withClient(async (c) => { printPost(await postsClient(c).cancel(id), cmd.optsWithGlobals<JsonFlag>()); return EXIT.ok; })());

  posts.command('run').description('local mode: publish the posts that are due now and wait for them (--watch: keep publishing as posts fall due)')
    .option('--watch', 'keep running, publishing posts as they fall due (Ctrl-C stops; an interrupted upload resumes on the next run)')
    .option('--json', 'JSON output: the posts this run worked on')
    .action((_f: unknown, cmd: Command) => withClient((c) => runCommand(c, cmd.optsWithGlobals<RunFlags>()))());

  const automation = posts.command('automation').description('rules that post new clips automatically at the free slots of a daily schedule');
  automation.command('add <accountId>').description('post every new clip with viral_score >= --min-score at the next free slot')
    .requiredOption('--min-score <n>', 'lowest viral_score (0-100) posted')
    .requiredOption('--slots <times>', 'daily posting times, comma-separated HH:MM (e.g. 09:00,18:00)')
    .option('--timezone <tz>', 'IANA time zone of the slots', 'UTC')
    .option('--json', 'JSON output')
    .action((accountId: string, _f: unknown, cmd: Command) => withClient(async (c) => {
      const f = cmd.optsWithGlobals<JsonFlag & { minScore: string; slots: string; timezone: string }>();
      const min = Number(f.minScore);
      if (!/^\d+$/.test(f.minScore.trim())) throw new CliError(`--min-score must be a whole number 0-100, got "${f.minScore}"`, EXIT.usage);
      const rule = await postsClient(c).automationAdd(accountId, { minViralScore: min, slots: f.slots.split(',').map((s) => s.trim()).filter(Boolean), timezone: f.timezone });
      printRules([rule], f, true);
      return EXIT.ok;
    })());
  automation.command('list <accountId>').description('the automation rules of a connected account').option('--json', 'JSON output')
    .action((accountId: string, _f: unknown, cmd: Command) => withClient(async (c) => {
      printRules(await postsClient(c).automationList(accountId), cmd.optsWithGlobals<JsonFlag>());
      return EXIT.ok;
    })());
  automation.command('remove <accountId> <ruleId>').description('remove an automation rule (posts it made stay as they are)').option('--json', 'JSON output')
    .action((accountId: string, ruleId: string, _f: unknown, cmd: Command) => withClient(async (c) => {
      printRules([await postsClient(c).automationRemove(accountId, ruleId)], cmd.optsWithGlobals<JsonFlag>(), true);
      return EXIT.ok;
    })());
}
