// status, get, list, cancel: one plain function each over the ShortsClient.
import type { ShortsClient } from '../../client/shorts-client.js';
import { EXIT } from '../cli-error.js';
import { printJson, printPagination, printTable, printWarnings } from '../output.js';

interface JsonFlag { json?: boolean }

export async function statusCommand(client: ShortsClient, id: string, flags: JsonFlag): Promise<number> {
  const s = await client.status(id);
  if (flags.json) printJson(s);
  else {
    printTable(['id', 'status', 'step', 'progress', 'failure reason'], [[s._id, s.status, s.stepMessage, `${s.progress}%`, s.failureReason]]);
    printWarnings(s.warnings);
  }
  return s.status === 'failed' ? EXIT.failure : EXIT.ok;
}

export async function getCommand(client: ShortsClient, id: string, flags: JsonFlag): Promise<number> {
  const d = await client.get(id);
  if (flags.json) {
    printJson(d);
    return EXIT.ok;
  }
  process.stdout.write(`${d.title || d.url}  [${d.status}]  ${d.start}-${d.end} s, ${d.sentences.length} sentences, template ${d.template}\n`);
  // layout: what each clip really got (auto's choice); empty for clips rendered before it was recorded.
  printTable(['#', 'score', 'title', 'from', 'to', 'duration', 'layout', 'video'], d.shorts.map((s, i) => [
    i + 1, s.viral_score, s.title, s.startTimestamp.toFixed(1), s.endTimestamp.toFixed(1), s.duration.toFixed(1), s.layout,
    s.error ? `FAILED: ${s.errorMessage}` : s.video_url,
  ]));
  return EXIT.ok;
}

export async function listCommand(client: ShortsClient, flags: JsonFlag & { status?: string; page?: string; limit?: string; sortBy?: string; sortOrder?: string }): Promise<number> {
  const r = await client.list({ status: flags.status, page: flags.page, limit: flags.limit, sortBy: flags.sortBy, sortOrder: flags.sortOrder });
  if (flags.json) {
    printJson({ data: r });
    return EXIT.ok;
  }
  printTable(['id', 'status', 'progress', 'created', 'range', 'source'], r.requests.map((q) => [
    q.requestId, q.status, `${q.progress}%`, q.createdAt, `${q.duration} s`, q.url,
  ]));
  printPagination(r.pagination);
  return EXIT.ok;
}

export async function cancelCommand(client: ShortsClient, id: string, flags: JsonFlag): Promise<number> {
  const r = await client.cancel(id);
  if (flags.json) printJson(r);
  else process.stdout.write(`request ${r._id} cancelled\n`);
  return EXIT.ok;
}
