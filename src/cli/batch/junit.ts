// `--junit FILE`: the batch as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test reporters)
// show as a test report: one <testcase> per item, <failure message=reason> for an item that failed or was
// cancelled, <skipped/> for one that did not run to the end (pending, interrupted).
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { BatchState, ItemRecord } from './state.js';

/** Text as XML character data or an attribute value; characters XML 1.0 cannot carry are dropped. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values).map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`).join('');
}

function seconds(item: ItemRecord): string {
  return (item.timings.seconds ?? 0).toFixed(3);
}

function testcase(item: ItemRecord): string {
  const head = `    <testcase${attrs({ classname: 'shorts.batch', name: item.out, file: item.source.value, time: seconds(item) })}`;
  const out: string[] = [];
  if (item.requestId) out.push(`request ${item.requestId}`);
  for (const c of item.clips) out.push(`${c.rank}. [${c.viralScore}] ${c.title} (${c.start.toFixed(1)}-${c.end.toFixed(1)} s) ${c.file ?? `FAILED: ${c.error ?? ''}`}`);
  for (const w of item.warnings) out.push(`warning: ${w}`);
  const systemOut = out.length ? `\n      <system-out>${xmlEscape(out.join('\n'))}</system-out>` : '';
  switch (item.status) {
    case 'completed':
      return systemOut ? `${head}>${systemOut}\n    </testcase>` : `${head}/>`;
    case 'failed':
    case 'cancelled': {
      const reason = item.status === 'cancelled' ? 'the request was cancelled' : item.failureReason ?? 'unknown reason';
      return `${head}>\n      <failure${attrs({ message: reason, type: item.status })}>${xmlEscape(reason)}</failure>${systemOut}\n    </testcase>`;
    }
    default: {
      const why = item.status === 'interrupted' ? 'interrupted before it finished; a re-run continues it' : 'not run';
      return `${head}>\n      <skipped${attrs({ message: why })}/>${systemOut}\n    </testcase>`;
    }
  }
}

export function junitXml(state: BatchState): string {
  const items = state.items;
  const failures = items.filter((i) => i.status === 'failed' || i.status === 'cancelled').length;
  const skipped = items.filter((i) => i.status !== 'completed' && i.status !== 'failed' && i.status !== 'cancelled').length;
  const time = items.reduce((n, i) => n + (i.timings.seconds ?? 0), 0).toFixed(3);
  const counts = { tests: items.length, failures, errors: 0, skipped, time };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'shorts batch', ...counts })}>`,
    `  <testsuite${attrs({ name: 'shorts batch', ...counts, timestamp: state.runStartedAt.replace(/\.\d+Z$/, '') })}>`,
    ...items.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function writeJunit(file: string, state: BatchState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, junitXml(state));
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
