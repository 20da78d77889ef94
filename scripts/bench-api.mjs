#!/usr/bin/env node
// Issue 12 benchmark: what a client of `shorts serve` waits for. Latency of the API's read endpoints over
// loopback (one keep-alive connection, serial), of the same reads through /mcp (stateless Streamable HTTP:
// a fresh MCP server per POST) and through `shorts mcp` over stdio, and the cold start of `shorts mcp`
// until its tools are listed. Run: `npm run build && node scripts/bench-api.mjs [N]`.
import { startBenchServe, percentile } from './bench-serve.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'bin', 'shorts');
const N = Number(process.argv[2] ?? 200);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
const env = { ...process.env, SHORTS_DATA_DIR: dataDir, SHORTS_ALLOW_PRIVATE_URLS: '1' };

const pct = percentile;
function row(name, xs) {
  console.log(`| ${name} | ${xs.length} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 95).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`);
}
async function timed(n, fn) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const { key, base, stop } = await startBenchServe(BIN, env);
try {
  const headers = { 'x-api-key': key };
  const get = async (p) => {
    const r = await fetch(`${base}/api/v1${p}`, { headers });
    const body = await r.json();
    if (!r.ok || !('data' in body)) throw new Error(`${p}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}; ${N} calls each (ms)\n`);
  console.log('| call | n | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|');
  // Warm-up: first requests compile the routes and open the connection.
  for (let i = 0; i < 20; i++) await get('/templates');
  row('GET /api/v1/templates', await timed(N, () => get('/templates')));
  row('GET /api/v1/shorts?limit=10', await timed(N, () => get('/shorts?limit=10')));
  row('GET /api/v1/music?limit=20', await timed(N, () => get('/music?limit=20')));
  row('GET /healthz', await timed(N, async () => { await (await fetch(`${base}/healthz`)).json(); }));

  const http = new Client({ name: 'bench', version: '1' });
  let t = performance.now();
  await http.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  const httpConnect = performance.now() - t;
  const mcpCalls = Math.min(N, 100);
  row('/mcp tools/call list_templates', await timed(mcpCalls, () => http.callTool({ name: 'list_templates', arguments: {} })));
  row('/mcp tools/call list_music', await timed(mcpCalls, () => http.callTool({ name: 'list_music', arguments: { limit: 20 } })));
  await http.close();

  const starts = [];
  let stdio;
  for (let i = 0; i < 5; i++) {
    stdio = new Client({ name: 'bench', version: '1' });
    t = performance.now();
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'ignore' }));
    await stdio.listTools();
    starts.push(performance.now() - t);
    if (i < 4) await stdio.close();
  }
  row('stdio `shorts mcp` tools/call list_templates (local)', await timed(mcpCalls, () => stdio.callTool({ name: 'list_templates', arguments: {} })));
  await stdio.close();
  console.log(`\n/mcp initialize handshake: ${httpConnect.toFixed(1)} ms; \`shorts mcp\` cold start to tools listed (5 runs): p50 ${pct(starts, 50).toFixed(0)} ms, max ${Math.max(...starts).toFixed(0)} ms`);
} finally {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
}
