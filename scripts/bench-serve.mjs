// What the API benchmarks share: a key and a `shorts serve` on a fresh data dir (loopback, private URLs allowed,
// as the tests run it), and percentiles of a list of timings.
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';

/** Serves one video file on loopback (GET and HEAD), a stand-in for where users' videos live: its URL and the server. */
export async function serveFile(file) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(file).size });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/${file.split('/').pop()}`, close: () => server.close() };
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Issues a key with `credits` and limits high enough for a benchmark, then starts serve (with `args`); resolves once it listens. */
export async function startBenchServe(bin, env, { credits = 5, args = [] } = {}) {
  const key = JSON.parse(execFileSync(process.execPath, [bin, 'keys', 'create', '--email', 'bench@example.com', '--credits', String(credits),
    '--hourly-limit', '2000', '--daily-limit', '20000', '--json'], { env })).key;
  const serve = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const base = await new Promise((resolve, reject) => {
    let log = '';
    serve.stderr.on('data', (b) => {
      log += b;
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) resolve(m[1]);
    });
    serve.on('exit', (c) => reject(new Error(`serve exited ${c}: ${log}`)));
  });
  return {
    key, base, pid: serve.pid,
    stop: async () => {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
    },
  };
}
