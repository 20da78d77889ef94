// The SSRF guard for every URL a user hands us (file URLs, video-page URLs, webhook URLs). The decision is
// made on the addresses the host actually resolves to, never on the spelling of the URL: all of them
// must be public. The checked addresses come back with the URL so the connection can be pinned to them
// (pinned-lookup.ts), and every redirect goes through the guard again (download.ts guardedGotOptions).
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { ShortsError, type ErrorCode } from '../errors.js';
import { headFileUrl, type UrlCheck } from './download.js';
import { parsePageUrl } from './ytdlp.js';
import { setting } from '../settings.js';

export { pinnedLookup } from './pinned-lookup.js';

export type AddressClass =
  | 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'broadcast'
  | 'reserved' | 'cgnat' | 'metadata' | 'invalid';

// ---------------------------------------------------------------------------------------------------
// Address text forms

/**
 * inet_aton / WHATWG IPv4: one to four dot-separated parts, each decimal, octal (leading 0) or hex
 * (0x); the last part fills the remaining bytes ('127.1', '2130706433', '0x7f.1', '0177.0.0.1').
 * One trailing dot is allowed. Returns the 32-bit value, or null when the text is not such a number.
 */
function parseIPv4Loose(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let v: number;
    if (/^0x[0-9a-f]*$/i.test(part)) v = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) v = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) v = Number(part);
    else return null;
    if (!Number.isSafeInteger(v)) return null;
    values.push(v);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  return values.reduce((acc, v, i) => acc + v * 256 ** (3 - i), 0) + last;
}

function v4Text(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function v4FromBytes(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
}

/** Sixteen bytes of a (valid, zone-free) IPv6 text, including forms with a dotted IPv4 tail. */
function parseIPv6(text: string): Uint8Array {
  // '::ffff:127.0.0.1' -> '::ffff:7f00:1': a dotted tail is two hex groups spelled differently.
  const body = text.replace(/(\d+\.\d+\.\d+\.\d+)$/, (dotted) => {
    const v = parseIPv4Loose(dotted)!;
    return `${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`;
  });
  const groups = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const [head, tail] = body.includes('::') ? body.split('::') as [string, string] : [body, ''];
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => { bytes[2 * i] = g >> 8; bytes[2 * i + 1] = g & 255; });
  return bytes;
}

/** RFC 5952 text: lower-case hex, leading zeros dropped, the longest run of two or more zero groups as '::'. */
function v6Text(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * The host part of a URL as an address or a name. Shorthand IPv4 ('127.1', '2130706433', '0x7f000001',
 * '0177.0.0.1') and every IPv6 spelling ('[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:a00:1]') come back as one
 * canonical address. WHATWG URL parsing already does this for URL hosts; this also covers host text that
 * reaches us another way, and it is what classifyAddress relies on.
 */
export function normalizeHost(host: string): { ip: string } | { name: string } {
  const bare = stripBrackets(host.trim());
  const [addr, zone] = bare.split('%', 2) as [string, string | undefined];
  if (isIPv6(addr)) return { ip: v6Text(parseIPv6(addr)) + (zone ? `%${zone}` : '') };
  const v4 = parseIPv4Loose(bare);
  if (v4 !== null) return { ip: v4Text(v4) };
  return { name: bare.toLowerCase().replace(/\.$/, '') };
}

// ---------------------------------------------------------------------------------------------------
// Classification

type V4Rule = [network: string, prefix: number, cls: AddressClass];

/** First match wins, so single addresses come before the ranges that hold them. */
const V4_RULES: V4Rule[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack instance metadata
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud metadata
  ['168.63.129.16', 32, 'metadata'], // Azure wire server (a "public" address only reachable inside Azure)
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // TEST-NET-1
  ['192.88.99.0', 24, 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // TEST-NET-2
  ['203.0.113.0', 24, 'reserved'], // TEST-NET-3
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V4_TABLE = V4_RULES.map(([net, prefix, cls]) => ({
  base: parseIPv4Loose(net)!, mask: prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0, cls,
}));

function classifyV4(n: number): AddressClass {
  for (const { base, mask, cls } of V4_TABLE) if (((n & mask) >>> 0) === base) return cls;
  return 'public';
}

/** An IPv6 range, or one that carries an IPv4 address at byte `v4At` and is judged by it. */
type V6Rule = { net: string; prefix: number; cls: AddressClass } | { net: string; prefix: number; v4At: number };

const V6_RULES: V6Rule[] = [
  { net: '::', prefix: 128, cls: 'unspecified' },
  { net: '::1', prefix: 128, cls: 'loopback' },
  { net: '::ffff:0:0', prefix: 96, v4At: 12 }, // IPv4-mapped
  { net: '::ffff:0:0:0', prefix: 96, v4At: 12 }, // SIIT IPv4-translated
  { net: '::', prefix: 96, v4At: 12 }, // IPv4-compatible (deprecated, still routed by some stacks)
  { net: '64:ff9b::', prefix: 96, v4At: 12 }, // NAT64 well-known prefix
  { net: '64:ff9b:1::', prefix: 48, cls: 'private' }, // local-use NAT64: any mapping the operator likes
  { net: '2002::', prefix: 16, v4At: 2 }, // 6to4
  { net: '2001::', prefix: 32, cls: 'reserved' }, // Teredo: the client address is obfuscated
  { net: '2001:db8::', prefix: 32, cls: 'reserved' }, // documentation
  { net: '2001:10::', prefix: 28, cls: 'reserved' }, // ORCHID
  { net: '2001:20::', prefix: 28, cls: 'reserved' }, // ORCHIDv2
  { net: '3fff::', prefix: 20, cls: 'reserved' }, // documentation (RFC 9637)
  { net: '100::', prefix: 64, cls: 'reserved' }, // discard
  { net: 'fd00:ec2::254', prefix: 128, cls: 'metadata' }, // AWS instance metadata over IPv6
  { net: 'fc00::', prefix: 7, cls: 'private' }, // unique local
  { net: 'fe80::', prefix: 10, cls: 'link-local' },
  { net: 'fec0::', prefix: 10, cls: 'private' }, // site-local (deprecated)
  { net: 'ff00::', prefix: 8, cls: 'multicast' },
  { net: '2000::', prefix: 3, cls: 'public' }, // global unicast
];

const V6_TABLE = V6_RULES.map((rule) => ({ ...rule, bytes: parseIPv6(rule.net) }));

function inPrefix(addr: Uint8Array, net: Uint8Array, prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((addr[bit / 8]! & mask) !== (net[bit / 8]! & mask)) return false;
  }
  return true;
}

function classifyV6(bytes: Uint8Array): AddressClass {
  for (const rule of V6_TABLE) {
    if (!inPrefix(bytes, rule.bytes, rule.prefix)) continue;
    return 'v4At' in rule ? classifyV4(v4FromBytes(bytes, rule.v4At)) : rule.cls;
  }
  return 'reserved'; // outside 2000::/3 and every listed range: unallocated
}

/**
 * What kind of address `ip` is, for IPv4 and IPv6 text in any accepted spelling (brackets, zone ids,
 * shorthand IPv4, IPv4 embedded in mapped, compatible, NAT64 and 6to4 IPv6). Text that is not an
 * address is 'invalid'. Only 'public' may be connected to (and 'loopback' when private URLs are allowed).
 */
export function classifyAddress(ip: string): AddressClass {
  const host = normalizeHost(ip);
  if (!('ip' in host)) return 'invalid';
  const addr = host.ip.split('%')[0]!;
  if (isIPv4(addr)) return classifyV4(parseIPv4Loose(addr)!);
  return classifyV6(parseIPv6(addr));
}

const CLASS_WORDS: Record<AddressClass, string> = {
  public: 'a public address', loopback: 'a loopback (localhost) address', private: 'a private network address',
  'link-local': 'a link-local address', unspecified: 'an unspecified address', multicast: 'a multicast address',
  broadcast: 'the broadcast address', reserved: 'a reserved address', cgnat: 'a carrier-grade NAT address',
  metadata: 'a cloud metadata address', invalid: 'not an IP address',
};

// ---------------------------------------------------------------------------------------------------
// The guard

export type Resolver = (hostname: string) => Promise<string[]>;

export interface GuardOptions {
  /**
   * Let loopback addresses through (development and tests). Private, link-local, metadata and every
   * other non-public class stay blocked. Default: SHORTS_ALLOW_PRIVATE_URLS=1.
   */
  allowPrivate?: boolean;
  /** Name resolution; default the system resolver (dns.lookup, every address). */
  resolver?: Resolver;
}

export interface CheckedUrl {
  url: URL;
  /** The addresses the check approved: the connection must use these and only these. */
  addresses: string[];
}

export type GuardFailure = 'invalid_url' | 'scheme' | 'unresolvable' | 'blocked_address';

/** A URL the guard refuses. Callers map it to the spec's code for the field (invalid_file_url, ...). */
export class UrlGuardError extends Error {
  constructor(readonly reason: GuardFailure, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'UrlGuardError';
  }
}

const RESOLVE_TIMEOUT_MS = 10_000;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

let loopbackAnnounced = false;

function loopbackAllowed(opts: GuardOptions | undefined): boolean {
  const on = opts?.allowPrivate ?? setting('SHORTS_ALLOW_PRIVATE_URLS') === '1';
  if (on && !loopbackAnnounced) {
    loopbackAnnounced = true;
    process.stderr.write('shortwright: private URLs allowed (SHORTS_ALLOW_PRIVATE_URLS=1): the URL guard lets loopback addresses through; development and tests only\n');
  }
  return on;
}

async function resolveAll(hostname: string, resolver: Resolver): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answers = await Promise.race([
      resolver(hostname),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' })), RESOLVE_TIMEOUT_MS);
      }),
    ]);
    if (answers.length === 0) throw Object.assign(new Error('no addresses'), { code: 'ENODATA' });
    return [...new Set(answers)];
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UrlGuardError('unresolvable', `cannot resolve ${hostname} (${code})`, { host: hostname, code });
  } finally {
    clearTimeout(timer);
  }
}

function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost'); // RFC 6761: always loopback
}

/**
 * Parses `raw`, accepts only http and https, resolves the host to ALL its addresses and rejects the URL
 * when ANY of them is not public (loopback passes only when private URLs are allowed). Nothing is
 * connected to. Throws UrlGuardError.
 */
export async function checkPublicUrl(raw: string | URL, opts?: GuardOptions): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new UrlGuardError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlGuardError('scheme', `only http and https URLs are accepted, not ${url.protocol.replace(/:$/, '')}`, { scheme: url.protocol });
  }
  const allowLoopback = loopbackAllowed(opts);
  const host = normalizeHost(url.hostname);
  let addresses: string[];
  if ('ip' in host) {
    addresses = [host.ip];
  } else {
    if (isLocalhostName(host.name) && !allowLoopback) {
      throw new UrlGuardError('blocked_address', `${host.name} is ${CLASS_WORDS.loopback}`, { host: host.name, class: 'loopback' });
    }
    addresses = await resolveAll(host.name, opts?.resolver ?? systemResolver);
  }
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls === 'public' || (cls === 'loopback' && allowLoopback)) continue;
    // For a name, say what kind of address it leads to but not which one: the message reaches the
    // caller, and internal DNS answers are none of their business.
    const what = 'ip' in host ? `${host.ip} is ${CLASS_WORDS[cls]}` : `${host.name} resolves to ${CLASS_WORDS[cls]}`;
    throw new UrlGuardError('blocked_address', `${what}; only public addresses are allowed`, { host: url.hostname, address, class: cls });
  }
  return { url, addresses };
}

/** A ShortsError with `code` for a guard refusal; other errors pass through. */
export function asShortsError(e: unknown, code: ErrorCode): unknown {
  if (e instanceof UrlGuardError) return new ShortsError(code, e.message, { reason: e.reason });
  return e;
}

/**
 * The guard as download.ts's UrlCheck (for downloadFile / headFileUrl / the fetch stage): checks each
 * URL and redirect target, returns the addresses to pin, and refuses with ShortsError(code).
 */
export function guardUrlCheck(code: ErrorCode, opts?: GuardOptions): UrlCheck {
  return async (url) => {
    try {
      return await checkPublicUrl(url, opts);
    } catch (e) {
      throw asShortsError(e, code);
    }
  };
}

export interface FileUrlCheck { url: URL; finalUrl: string; contentType: string; contentLength: number | null }

/**
 * Spec 4.2 "File URL checks": http/https, public addresses, then a HEAD request pinned to the checked
 * addresses with every redirect checked again; it must answer 2xx with a video Content-Type and a
 * Content-Length within the limit. Throws ShortsError invalid_file_url / file_too_large.
 */
export async function checkFileUrl(raw: string, opts: GuardOptions & { maxBytes?: number; signal?: AbortSignal } = {}): Promise<FileUrlCheck> {
  const head = await headFileUrl(raw, { maxBytes: opts.maxBytes, signal: opts.signal, checkUrl: guardUrlCheck('invalid_file_url', opts) });
  return { url: new URL(raw), finalUrl: head.finalUrl, contentType: head.contentType, contentLength: head.contentLength };
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Spec 4.2 webhookUrl: http/https, at most 2048 characters, public address. Throws ShortsError invalid_webhook_url. */
export async function checkWebhookUrl(raw: string, opts?: GuardOptions): Promise<URL> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new ShortsError('invalid_webhook_url', `the webhook URL is ${raw.length} characters long; at most ${MAX_WEBHOOK_URL_LENGTH} are allowed`);
  }
  try {
    return (await checkPublicUrl(raw, opts)).url;
  } catch (e) {
    throw asShortsError(e, 'invalid_webhook_url');
  }
}

/**
 * Spec 4.2 url: an http/https video-page URL, not a short-form /shorts/ page, whose host resolves to public
 * addresses. Throws ShortsError invalid_video_site_url. (This is the check at creation; when yt-dlp runs,
 * each connection it makes is checked again through the egress proxy, egress-proxy.ts.)
 */
export async function checkVideoSiteUrl(raw: string, opts?: GuardOptions): Promise<URL> {
  const url = parsePageUrl(raw);
  try {
    return (await checkPublicUrl(url, opts)).url;
  } catch (e) {
    throw asShortsError(e, 'invalid_video_site_url');
  }
}
