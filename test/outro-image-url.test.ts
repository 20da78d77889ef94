// outroImageUrl is checked at creation (issue 12): a private, metadata or file: URL is a 400 before any
// credit is charged, through a real `serve` on loopback. Nothing here connects anywhere but loopback:
// the guard refuses private addresses by their class, before any connection.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, type Loopback, type ServeProcess } from './helpers/serve.js';

describe('outroImageUrl at creation (real serve)', () => {
  let serve: ServeProcess;
  let files: Loopback;
  let images: Loopback;
  let key: string;
  let accountId: string;
  let dataDir: string;

  beforeAll(async () => {
    // Loopback is allowed (SHORTS_ALLOW_PRIVATE_URLS=1) so the source on a loopback server passes;
    // private, link-local and metadata addresses stay refused.
    const env = serveEnv();
    dataDir = env.SHORTS_DATA_DIR!;
    ({ key, accountId } = await createKey(env));
    serve = await startServe(env);
    files = await loopback(fileHandler(SAMPLE));
    images = await loopback((_req, res) => { res.writeHead(200, { 'content-type': 'image/png' }).end(); });
  }, 60_000);
  afterAll(async () => {
    await serve?.kill();
    await files?.close();
    await images?.close();
  });

  function ledger(): { credits: number; requests: number } {
    const db = new Database(path.join(dataDir, 'shorts.db'), { readonly: true });
    try {
      const { credits } = db.prepare('SELECT credits FROM accounts WHERE id = ?').get(accountId) as { credits: number };
      const { n } = db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number };
      return { credits, requests: n };
    } finally {
      db.close();
    }
  }

  const create = (outroImageUrl: string) => api(serve.api, key, 'POST', '/shorts/create',
    { fileUrl: `${files.url}/talk.mp4`, start: 0, end: 80, outroEnabled: true, outroImageUrl });

  it.each([
    ['file:///etc/passwd', /outroImageUrl must be a public http or https image URL, not file/],
    ['ftp://ftp.example.com/card.png', /outroImageUrl must be a public http or https image URL, not ftp/],
    ['http://10.0.0.7/card.png', /outroImageUrl is refused: 10\.0\.0\.7 is a private/],
    ['http://0xa.1/card.png', /outroImageUrl is refused: 10\.0\.0\.1 is a private/],
    ['http://169.254.169.254/latest/meta-data/', /outroImageUrl is refused: 169\.254\.169\.254 is a cloud metadata/],
    ['http://192.168.1.1:8080/card.png', /outroImageUrl is refused: 192\.168\.1\.1 is a private/],
    ['http://[fd00::1]/card.png', /outroImageUrl is refused: fd00::1 is a private/],
  ])('%s: 400 invalid_request at creation, no credit, no request', async (url, message) => {
    const before = ledger();
    const r = await create(url);
    expect(r.status, r.text).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(ledger()).toEqual(before);
  });

  it('a public-looking (here: loopback, allowed for tests) image URL is accepted, and never fetched at creation', async () => {
    const before = ledger();
    const r = await create(`${images.url}/card.png`);
    expect(r.status, r.text).toBe(202);
    expect(images.requests).toEqual([]);
    expect(ledger()).toEqual({ credits: before.credits - 1, requests: before.requests + 1 });
  });
});
