import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadFile } from '../src/net/download.js';
import {
  checkFileUrl, checkPublicUrl, checkVideoSiteUrl, checkWebhookUrl, classifyAddress, guardUrlCheck,
  normalizeHost, pinnedLookup, UrlGuardError, type AddressClass, type Resolver,
} from '../src/net/url-guard.js';
import { ShortsError } from '../src/errors.js';
import { installTripwire, type Tripwire } from './helpers/socket-tripwire.js';
import { rejection } from './helpers/rejection.js';

/** A resolver from a fixed table that records what it was asked; unknown names fail like DNS does. */
function tableResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const answer = table[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolve, { calls });
}


describe('classifyAddress', () => {
  const table: [string, AddressClass][] = [
    // IPv4
    ['8.8.8.8', 'public'], ['93.184.216.34', 'public'], ['1.1.1.1', 'public'],
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'], ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'], ['100.127.255.254', 'cgnat'], ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'], ['127.8.9.10', 'loopback'],
    ['169.254.169.254', 'metadata'], ['169.254.0.1', 'link-local'], ['169.254.255.255', 'link-local'],
    ['172.15.255.255', 'public'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['172.32.0.1', 'public'],
    ['192.0.0.8', 'reserved'], ['192.0.2.1', 'reserved'], ['192.168.1.1', 'private'], ['192.169.0.1', 'public'],
    ['198.18.0.1', 'reserved'], ['198.19.255.255', 'reserved'], ['198.20.0.1', 'public'],
    ['198.51.100.7', 'reserved'], ['203.0.113.9', 'reserved'],
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'], ['255.255.255.255', 'broadcast'],
    ['100.100.100.200', 'metadata'],
    // Shorthand IPv4 spellings that inet_aton and URL parsers accept
    ['127.1', 'loopback'], ['2130706433', 'loopback'], ['0x7f000001', 'loopback'], ['0x7f.1', 'loopback'],
    ['0177.0.0.1', 'loopback'], ['017700000001', 'loopback'], ['10.1', 'private'], ['167772161', 'private'],
    ['0xa9.254.169.254', 'metadata'], ['2852039166', 'metadata'], ['127.0.0.1.', 'loopback'],
    // IPv6
    ['::', 'unspecified'], ['::1', 'loopback'], ['[::1]', 'loopback'], ['0:0:0:0:0:0:0:1', 'loopback'],
    ['2606:4700:4700::1111', 'public'], ['2001:4860:4860::8888', 'public'],
    ['fd00::1', 'private'], ['fc00::1', 'private'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'],
    ['[fe80::1%25eth0]', 'link-local'], ['febf::1', 'link-local'], ['fec0::1', 'private'],
    ['ff02::1', 'multicast'], ['ff05::2', 'multicast'],
    ['fd00:ec2::254', 'metadata'],
    ['2001:db8::1', 'reserved'], ['2001:0:4136:e378::1', 'reserved'], ['3fff::1', 'reserved'], ['100::1', 'reserved'],
    ['::2:3:4:5', 'reserved'], ['4000::1', 'reserved'],
    // IPv4 inside IPv6: judged by the embedded address
    ['::ffff:127.0.0.1', 'loopback'], ['[::ffff:127.0.0.1]', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['[::ffff:7f00:1]', 'loopback'],
    ['0:0:0:0:0:ffff:a00:1', 'private'], ['[0:0:0:0:0:ffff:a00:1]', 'private'], ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', 'public'], ['::FFFF:C0A8:0101', 'private'],
    ['::127.0.0.1', 'loopback'], ['::7f00:1', 'loopback'], ['::a00:1', 'private'],
    ['::ffff:0:a00:1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'], ['64:ff9b::7f00:1', 'loopback'], ['64:ff9b::808:808', 'public'], ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'], ['2002:a9fe:a9fe::1', 'metadata'], ['2002:c0a8:101::1', 'private'], ['2002:808:808::1', 'public'],
    // Not addresses
    ['example.com', 'invalid'], ['', 'invalid'], ['1.2.3.4.5', 'invalid'], ['256.1.1.1', 'invalid'], ['::g', 'invalid'],
  ];
  it.each(table)('classifies %s as %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('normalizeHost', () => {
  it.each([
    ['127.1', '127.0.0.1'], ['2130706433', '127.0.0.1'], ['0x7f000001', '127.0.0.1'], ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'], ['[::1]', '::1'], ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[0:0:0:0:0:ffff:a00:1]', '::ffff:a00:1'], ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], ['8.8.8.8', '8.8.8.8'],
  ])('reads %s as the address %s', (host, ip) => {
    expect(normalizeHost(host)).toEqual({ ip });
  });

  it('keeps names as lower-case names without the trailing dot', () => {
    expect(normalizeHost('Video.Example.COM.')).toEqual({ name: 'video.example.com' });
    expect(normalizeHost('1.2.3.example')).toEqual({ name: '1.2.3.example' });
  });

  it('agrees with WHATWG URL parsing of shorthand hosts', () => {
    for (const host of ['2130706433', '127.1', '0x7f.1', '0177.0.0.1', '0x7f000001']) {
      expect(new URL(`http://${host}/`).hostname).toBe('127.0.0.1');
      expect(normalizeHost(host)).toEqual({ ip: '127.0.0.1' });
    }
  });
});

describe('pinnedLookup', () => {
  const lookup = pinnedLookup(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  const call = (options: object | number | undefined) => new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
    const cb = (err: NodeJS.ErrnoException | null, address: unknown, family?: number) => resolve({ err, address, family });
    if (options === undefined) (lookup as unknown as (h: string, cb: unknown) => void)('rebound.example', cb);
    else (lookup as unknown as (h: string, o: unknown, cb: unknown) => void)('rebound.example', options, cb);
  });

  it('answers every pinned address with all: true, whatever name is asked', async () => {
    const { err, address } = await call({ all: true });
    expect(err).toBeNull();
    expect(address).toEqual([{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
  });

  it('answers the first pinned address without all, like dns.lookup', async () => {
    expect(await call(undefined)).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await call({})).toEqual({ err: null, address: '93.184.216.34', family: 4 });
  });

  it('narrows by family and fails with ENOTFOUND when no pinned address fits', async () => {
    expect(await call(6)).toMatchObject({ err: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
    expect(await call({ family: 4, all: true })).toMatchObject({ address: [{ address: '93.184.216.34', family: 4 }] });
    const only4 = pinnedLookup(['127.0.0.1']);
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => only4('x', { family: 6 }, (e) => resolve(e)));
    expect(err?.code).toBe('ENOTFOUND');
  });

  it('has the shape of dns.lookup', async () => {
    // Same call, same answer shape as the real thing for an address literal.
    const real = await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup('127.0.0.1', { all: true }, (e, a) => (e ? reject(e) : resolve(a))));
    const pinned = await new Promise<LookupAddress[]>((resolve, reject) => pinnedLookup(['127.0.0.1'])('whatever', { all: true }, (e, a) => (e ? reject(e) : resolve(a as LookupAddress[]))));
    expect(pinned).toEqual(real);
  });

  it('refuses to pin something that is not an address', () => {
    expect(() => pinnedLookup(['example.com'])).toThrow(TypeError);
  });
});

describe('checkPublicUrl', () => {
  let tripwire: Tripwire;
  beforeAll(() => { tripwire = installTripwire(); });
  afterAll(() => tripwire.dispose());
  beforeEach(() => tripwire.reset());
  afterEach(() => vi.unstubAllEnvs());

  it('returns every resolved address of a public host, to pin the connection to', async () => {
    const resolver = tableResolver({ 'cdn.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const checked = await checkPublicUrl('https://cdn.example/v.mp4', { resolver, allowPrivate: false });
    expect(checked.url.href).toBe('https://cdn.example/v.mp4');
    expect(checked.addresses).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('rejects a host when any one of its addresses is private', async () => {
    const resolver = tableResolver({ 'mixed.example': ['93.184.216.34', '10.0.0.5', '8.8.8.8'] });
    const e = await rejection(checkPublicUrl('http://mixed.example/', { resolver, allowPrivate: false }));
    expect(e).toBeInstanceOf(UrlGuardError);
    expect(e).toMatchObject({ reason: 'blocked_address', details: { address: '10.0.0.5', class: 'private' } });
    expect((e as Error).message).toBe('mixed.example resolves to a private network address; only public addresses are allowed');
  });

  it('rejects a mixed IPv6 answer with a unique-local address', async () => {
    const resolver = tableResolver({ 'v6.example': ['2606:4700::6810:84e5', 'fd12:3456::1'] });
    await expect(checkPublicUrl('http://v6.example/', { resolver, allowPrivate: false })).rejects.toMatchObject({ details: { class: 'private' } });
  });

  it('rejects a name resolving to 10.0.0.5 without connecting to it', async () => {
    const resolver = tableResolver({ 'internal.test': ['10.0.0.5'] });
    await expect(checkPublicUrl('http://internal.test:8080/x', { resolver, allowPrivate: false })).rejects.toBeInstanceOf(UrlGuardError);
    expect(resolver.calls).toEqual(['internal.test']);
    expect(tripwire.opened).toBe(0);
  });

  it.each(['ftp://example.com/v.mp4', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)', 'data:video/mp4;base64,AAAA'])('rejects the scheme of %s', async (raw) => {
    await expect(checkPublicUrl(raw, { resolver: tableResolver({}) })).rejects.toMatchObject({ reason: 'scheme' });
  });

  it('rejects text that is not a URL', async () => {
    await expect(checkPublicUrl('not a url')).rejects.toMatchObject({ reason: 'invalid_url' });
  });

  it.each([
    ['http://127.0.0.1/', 'loopback'], ['http://2130706433/', 'loopback'], ['http://0x7f.1/', 'loopback'], ['http://127.1:9/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'], ['http://[::1]/', 'loopback'], ['http://[::ffff:127.0.0.1]/', 'loopback'], ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[0:0:0:0:0:ffff:a00:1]/', 'private'], ['http://169.254.169.254/latest/meta-data/', 'metadata'], ['http://[fd00::1]/', 'private'],
    ['http://0.0.0.0/', 'unspecified'], ['http://0/', 'unspecified'], ['http://192.168.0.1/', 'private'], ['http://172.20.1.1/', 'private'],
    ['http://%31%32%37.0.0.1/', 'loopback'], ['http://[64:ff9b::a9fe:a9fe]/', 'metadata'],
  ])('blocks the address literal in %s (%s) without a DNS lookup', async (raw, cls) => {
    const resolver = tableResolver({});
    await expect(checkPublicUrl(raw, { resolver, allowPrivate: false })).rejects.toMatchObject({ reason: 'blocked_address', details: { class: cls } });
    expect(resolver.calls).toEqual([]);
  });

  it('blocks localhost names without asking DNS', async () => {
    const resolver = tableResolver({ localhost: ['93.184.216.34'] });
    await expect(checkPublicUrl('http://localhost:3000/', { resolver, allowPrivate: false })).rejects.toMatchObject({ details: { class: 'loopback' } });
    await expect(checkPublicUrl('http://api.LOCALHOST./', { resolver, allowPrivate: false })).rejects.toMatchObject({ details: { class: 'loopback' } });
    expect(resolver.calls).toEqual([]);
  });

  it('rejects a name that does not resolve', async () => {
    await expect(checkPublicUrl('https://nowhere.test/', { resolver: tableResolver({}), allowPrivate: false })).rejects.toMatchObject({ reason: 'unresolvable' });
  });

  it('SHORTS_ALLOW_PRIVATE_URLS=1 lets loopback through, but not private, link-local or metadata addresses', async () => {
    vi.stubEnv('SHORTS_ALLOW_PRIVATE_URLS', '1');
    const resolver = tableResolver({ 'dev.test': ['127.0.0.1', '::1'], 'lan.test': ['10.1.2.3'] });
    await expect(checkPublicUrl('http://127.0.0.1:8080/v.mp4', { resolver })).resolves.toMatchObject({ addresses: ['127.0.0.1'] });
    await expect(checkPublicUrl('http://dev.test/', { resolver })).resolves.toMatchObject({ addresses: ['127.0.0.1', '::1'] });
    await expect(checkPublicUrl('http://10.0.0.1/', { resolver })).rejects.toMatchObject({ details: { class: 'private' } });
    await expect(checkPublicUrl('http://lan.test/', { resolver })).rejects.toMatchObject({ details: { class: 'private' } });
    await expect(checkPublicUrl('http://169.254.169.254/', { resolver })).rejects.toMatchObject({ details: { class: 'metadata' } });
    await expect(checkPublicUrl('http://169.254.1.1/', { resolver })).rejects.toMatchObject({ details: { class: 'link-local' } });
    await expect(checkPublicUrl('http://0.0.0.0/', { resolver })).rejects.toMatchObject({ details: { class: 'unspecified' } });
  });

  it('blocks loopback when SHORTS_ALLOW_PRIVATE_URLS is unset or anything but 1', async () => {
    vi.stubEnv('SHORTS_ALLOW_PRIVATE_URLS', '');
    await expect(checkPublicUrl('http://127.0.0.1/')).rejects.toMatchObject({ details: { class: 'loopback' } });
    vi.stubEnv('SHORTS_ALLOW_PRIVATE_URLS', 'true');
    await expect(checkPublicUrl('http://127.0.0.1/')).rejects.toMatchObject({ details: { class: 'loopback' } });
  });
});

describe('checkWebhookUrl', () => {
  const resolver = tableResolver({ 'hooks.example': ['93.184.216.34'], 'intranet.example': ['192.168.10.20'], 'meta.example': ['169.254.169.254'] });
  const opts = { resolver, allowPrivate: false };

  it('accepts a public http or https URL of up to 2048 characters', async () => {
    const base = 'https://hooks.example/';
    const longest = base + 'a'.repeat(2048 - base.length);
    expect(longest).toHaveLength(2048);
    await expect(checkWebhookUrl(longest, opts)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('http://hooks.example/shorts?token=1', opts)).resolves.toMatchObject({ hostname: 'hooks.example' });
  });

  it('rejects a URL above 2048 characters with invalid_webhook_url', async () => {
    const url = `https://hooks.example/${'a'.repeat(2048)}`;
    const e = await rejection(checkWebhookUrl(url, opts));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_webhook_url', message: `the webhook URL is ${url.length} characters long; at most 2048 are allowed` });
  });

  it.each([
    ['ftp://hooks.example/', /only http and https/], ['not-a-url', /not a valid URL/], ['http://127.0.0.1/hook', /loopback/],
    ['http://localhost/hook', /loopback/], ['http://10.0.0.1/hook', /private/], ['http://172.16.5.5/hook', /private/],
    ['http://192.168.1.1/hook', /private/], ['http://169.254.169.254/hook', /cloud metadata/], ['http://intranet.example/hook', /private/],
    ['http://meta.example/hook', /cloud metadata/], ['https://unknown.example/hook', /cannot resolve/],
  ])('rejects %s with invalid_webhook_url', async (raw, message) => {
    const e = await rejection(checkWebhookUrl(raw, opts));
    expect(e).toBeInstanceOf(ShortsError);
    expect((e as ShortsError).code).toBe('invalid_webhook_url');
    expect((e as Error).message).toMatch(message);
  });
});

describe('checkVideoSiteUrl', () => {
  const resolver = tableResolver({ 'videos.example': ['93.184.216.34'], 'intranet.example': ['10.9.8.7'] });
  const opts = { resolver, allowPrivate: false };

  it('accepts a public video page', async () => {
    await expect(checkVideoSiteUrl('https://videos.example/watch?v=abc', opts)).resolves.toMatchObject({ pathname: '/watch' });
  });

  it.each(['https://videos.example/shorts/abc', 'https://intranet.example/watch?v=1', 'http://127.0.0.1/watch', 'ftp://videos.example/watch'])('rejects %s with invalid_video_site_url', async (raw) => {
    await expect(checkVideoSiteUrl(raw, opts)).rejects.toMatchObject({ code: 'invalid_video_site_url' });
  });
});

describe('checkFileUrl and pinned downloads against loopback servers', () => {
  let server: Server;
  let port: number;
  let base: string;
  let hits: string[] = [];
  let tripwire: Tripwire;
  let workDir: string;
  const body = Buffer.alloc(20_000, 3);

  function route(req: IncomingMessage, res: ServerResponse): void {
    hits.push(`${req.method} ${req.headers.host} ${req.url}`);
    switch (req.url) {
      case '/clip.mp4':
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length });
        return void res.end(req.method === 'HEAD' ? undefined : body);
      case '/page.html':
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<html></html>');
      case '/huge.mp4':
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(11 * 1000 ** 3) });
        return void res.end();
      case '/to-internal':
        res.writeHead(302, { location: `http://internal.test:${port}/clip.mp4` });
        return void res.end();
      case '/to-named':
        res.writeHead(302, { location: `http://files.test:${port}/clip.mp4` });
        return void res.end();
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return void res.end('not found');
    }
  }

  beforeAll(async () => {
    tripwire = installTripwire();
    server = createServer(route);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    tripwire.dispose();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    hits = [];
    tripwire.reset();
    workDir = mkdtempSync(path.join(os.tmpdir(), 'shorts-guard-'));
  });
  afterEach(() => rmSync(workDir, { recursive: true, force: true }));

  // `.test` names exist only in these resolvers: the system resolver would fail on them, so a request
  // that succeeds proves the connection went to the checked (pinned) address.
  const resolver = tableResolver({ 'internal.test': ['10.1.2.3'], 'files.test': ['127.0.0.1'], 'video.test': ['127.0.0.1'] });
  const dev = { allowPrivate: true, resolver };

  it('accepts a video file and reports its type and length', async () => {
    await expect(checkFileUrl(`${base}/clip.mp4`, dev)).resolves.toMatchObject({ contentType: 'video/mp4', contentLength: body.length });
    expect(hits).toEqual([`HEAD 127.0.0.1:${port} /clip.mp4`]);
  });

  it('rejects an HTML page with invalid_file_url', async () => {
    await expect(checkFileUrl(`${base}/page.html`, dev)).rejects.toMatchObject({ code: 'invalid_file_url', message: expect.stringMatching(/text\/html is not a video/) });
  });

  it('rejects a 404 with invalid_file_url', async () => {
    await expect(checkFileUrl(`${base}/missing.mp4`, dev)).rejects.toMatchObject({ code: 'invalid_file_url', message: expect.stringMatching(/HTTP 404/) });
  });

  it('rejects a Content-Length above 10 GB with file_too_large', async () => {
    await expect(checkFileUrl(`${base}/huge.mp4`, dev)).rejects.toMatchObject({ code: 'file_too_large' });
  });

  it('rejects a loopback file URL when private URLs are not allowed, without a request', async () => {
    await expect(checkFileUrl(`${base}/clip.mp4`, { allowPrivate: false, resolver })).rejects.toMatchObject({ code: 'invalid_file_url', message: expect.stringMatching(/loopback/) });
    expect(hits).toEqual([]);
    expect(tripwire.opened).toBe(0);
  });

  it('rejects a redirect to a host resolving to a private address before contacting it', async () => {
    resolver.calls.length = 0;
    const e = await rejection(checkFileUrl(`${base}/to-internal`, dev));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_file_url', message: 'internal.test resolves to a private network address; only public addresses are allowed' });
    expect(resolver.calls).toEqual(['internal.test']);
    expect(hits).toEqual([`HEAD 127.0.0.1:${port} /to-internal`]);
    expect(tripwire.opened).toBe(1); // the socket to the first hop only
    expect(tripwire.refused).toEqual([]);
  });

  it('connects each hop to the address its check approved, not to a fresh DNS answer', async () => {
    await expect(checkFileUrl(`http://video.test:${port}/to-named`, dev)).resolves.toMatchObject({ contentType: 'video/mp4', finalUrl: `http://files.test:${port}/clip.mp4` });
    expect(hits).toEqual([`HEAD video.test:${port} /to-named`, `HEAD files.test:${port} /clip.mp4`]);
  });

  it('downloads through the guard with the connection pinned, and refuses a private redirect', async () => {
    const checkUrl = guardUrlCheck('invalid_file_url', dev);
    const result = await downloadFile(`http://video.test:${port}/clip.mp4`, { destDir: workDir, checkUrl });
    expect(readFileSync(result.path)).toEqual(body);
    await expect(downloadFile(`${base}/to-internal`, { destDir: workDir, checkUrl, retries: 0 })).rejects.toMatchObject({ code: 'invalid_file_url' });
    expect(hits.filter((h) => h.includes('internal.test'))).toEqual([]);
    expect(tripwire.refused).toEqual([]);
  });
});
