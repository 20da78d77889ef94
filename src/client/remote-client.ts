// ShortsClient over HTTP: talks to a `shorts serve` (or any instance of the Shorts API) with got.
// Nothing here knows the engine; every answer is the API's own shape, unwrapped from the `{ "data": … }`
// envelope every success carries (in `call`, the one place). Every POST carries an Idempotency-Key (issue 23:
// one per logical call, the caller's or a fresh UUID), so it is retried like a GET — a little, on network errors
// and gateway hiccups, never on a 4xx — without a second create or a second credit: the server answers a
// repeated key with the first answer.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import got, { HTTPError, ParseError, RequestError, type Got, type Method } from 'got';
import type {
  CatalogPage, CreateBody, CreateOptions, EditBody, GameVideoItem, MemeHookItem, MusicTrackItem, Query, RerenderWaitOptions, ShortsClient, WaitOptions,
} from './shorts-client.js';
import type {
  CancelResponse, CreateResponse, Pagination, PostObject, RequestDetail, RequestListItem, ShortObject, StatusResponse, TemplateList,
} from '../api/types.js';
import type { RequestStatus } from '../domain/request.js';
import { ERROR_CODES, ShortsError, rateLimitWaitSec, type ErrorCode } from '../errors.js';
import { exportRemote } from './export-remote.js';
import { PollPacer } from './poll-pacer.js';
import type { ExportFormat } from '../api/export-formats.js';

/** Spec 4.3: poll every 10 seconds, give up after about 45 minutes. */
export const DEFAULT_POLL_INTERVAL_MS = 10_000;
export const DEFAULT_WAIT_TIMEOUT_MS = 45 * 60_000;

const TERMINAL: ReadonlySet<RequestStatus> = new Set(['completed', 'failed', 'cancelled']);
const API_PATH = '/api/v1';

export interface RemoteClientOptions {
  /** The server root (http://host:8080) or its API base (http://host:8080/api/v1). */
  baseUrl: string;
  apiKey: string;
  pollIntervalMs?: number;
  /** How long `wait` polls before giving up. */
  timeoutMs?: number;
  /** Where notes for the user go (rate-limit pauses); stderr in the CLI. */
  log?: (line: string) => void;
}

/**
 * Normalises a remote address to the `/api/v1` base: the server root, a path under a reverse proxy
 * and the API base itself are all accepted, with or without a trailing slash. Throws on anything that
 * is not an http(s) URL.
 */
export function apiBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`"${raw}" is not a URL; expected something like http://host:8080/api/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`the remote must be an http or https URL, not ${url.protocol.replace(/:$/, '')}`);
  }
  url.search = '';
  url.hash = '';
  const trimmed = url.pathname.replace(/\/+$/, '');
  url.pathname = trimmed.endsWith(API_PATH) ? trimmed : `${trimmed}${API_PATH}`;
  return url.href.replace(/\/+$/, '');
}

interface ErrorEnvelope { error: { code: string; message?: string; details?: Record<string, unknown> } }

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

function isKnownCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

export class RemoteClient implements ShortsClient {
  readonly mode = 'remote' as const;
  readonly baseUrl: string;
  private readonly http: Got;
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  /** How often `wait` reads the status (SHORTS_POLL_INTERVAL_MS in the CLI; the spec's 10 s by default). */
  readonly pollIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly log: (line: string) => void;
  /** Shared by every wait of this client: their polls together stay within the account's hourly budget. */
  private readonly pacer = new PollPacer();

  constructor(private readonly opts: RemoteClientOptions) {
    this.baseUrl = apiBaseUrl(opts.baseUrl);
    this.pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    this.log = opts.log ?? (() => {});
    this.http = got.extend({
      headers: { 'x-api-key': opts.apiKey, 'user-agent': 'shortwright-cli', accept: 'application/json' },
      agent: this.agents,
      responseType: 'json',
      timeout: { connect: 15_000, response: 60_000 },
      retry: {
        limit: 2,
        // Reads, and POSTs under their Idempotency-Key (a repeat gets the first answer); a cancel is not worth a 409 on replay.
        methods: ['GET', 'POST'],
        // 429 is not retried here: `wait` honours details.retryAfter itself, other commands report it.
        statusCodes: [502, 503, 504],
        backoffLimit: 2_000,
      },
    });
  }

  private url(path: string): string {
    return `${this.baseUrl}/${path}`;
  }

  /**
   * One API call: the success's `data`, or the API's error as a ShortsError (see describe). Public so the
   * clients of other resources (connected accounts, posts) speak through the same connection and errors.
   */
  async call<T>(method: Method, path: string, opts: { json?: unknown; query?: Query; signal?: AbortSignal; idempotencyKey?: string } = {}): Promise<T> {
    const searchParams: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) searchParams[k] = v;
    let body: unknown;
    try {
      const response = await this.http<unknown>(this.url(path), {
        method,
        json: opts.json,
        searchParams,
        signal: opts.signal,
        // A create waits on the server's HEAD check of the file URL (or the video site's metadata). Got sends
        // the same headers on a retry, so every try of this call carries one key.
        ...(method === 'POST' ? {
          timeout: { connect: 15_000, response: 180_000 },
          headers: { 'idempotency-key': opts.idempotencyKey ?? randomUUID() },
        } : {}),
      });
      body = response.body;
      this.pacer.observe(response.headers);
    } catch (e) {
      if (e instanceof HTTPError) this.pacer.observe(e.response.headers);
      throw this.describe(e);
    }
    const data = (body as { data?: unknown } | null)?.data;
    if (typeof data !== 'object' || data === null) {
      throw new Error(`the Shorts API at ${this.baseUrl} answered ${method} /${path} without a "data" object; is that the /api/v1 base of a shortwright server?`);
    }
    return data as T;
  }

  /** got's errors as the API's own (ShortsError) or a plain sentence about the connection. */
  private describe(e: unknown): unknown {
    if (e instanceof HTTPError) {
      let body: unknown = e.response.body;
      if (typeof body === 'string') {
        try { body = JSON.parse(body); } catch { /* not JSON: handled below */ }
      }
      if (isErrorEnvelope(body)) {
        const { code, message, details } = body.error;
        const text = message ?? `HTTP ${e.response.statusCode}`;
        if (isKnownCode(code)) return new ShortsError(code, text, details);
        return new ShortsError('internal_error', text, { ...details, code, httpStatus: e.response.statusCode });
      }
      return new Error(`the Shorts API at ${this.baseUrl} answered HTTP ${e.response.statusCode} without an error body; is that the /api/v1 base of a shortwright server?`);
    }
    if (e instanceof ParseError) {
      return new Error(`the server at ${this.baseUrl} did not answer with JSON; is that the /api/v1 base of a shortwright server?`);
    }
    if (e instanceof RequestError) {
      if (e.name === 'AbortError' || e.code === 'ERR_ABORTED') return e;
      return new Error(`cannot reach the Shorts API at ${this.baseUrl}: ${e.code || e.message}`);
    }
    return e;
  }

  async create(body: CreateBody, opts: CreateOptions = {}): Promise<CreateResponse> {
    if (body.file !== undefined) {
      throw new ShortsError('invalid_request', 'a local --file cannot be sent to a remote instance; use --file-url');
    }
    return this.call<CreateResponse>('POST', 'shorts/create', { json: body, idempotencyKey: opts.idempotencyKey });
  }

  /**
   * Polls until the request ends. Aborting the signal cancels it on the server (Ctrl-C in `create`), unless
   * `cancelOnAbort` is false (`shorts wait`: Ctrl-C only stops waiting): then it resolves with the last status.
   */
  async wait(id: string, opts: WaitOptions = {}): Promise<StatusResponse> {
    const { signal } = opts;
    const stop = (last: StatusResponse | undefined): Promise<StatusResponse> =>
      opts.cancelOnAbort === false ? (last ? Promise.resolve(last) : this.status(id)) : this.cancelForWait(id, last);
    const deadline = Date.now() + this.timeoutMs;
    let last: StatusResponse | undefined;
    const leave = this.pacer.enter();
    try {
      for (;;) {
        if (signal?.aborted) return await stop(last);
        let next;
        try {
          next = await this.poll(id, signal, opts, deadline, last);
        } catch (e) {
          if (signal?.aborted) return await stop(last);
          throw e;
        }
        if ('done' in next) return next.done;
        last = next.last;
        try {
          await sleep(next.delayMs, undefined, { signal });
        } catch {
          return await stop(last);
        }
      }
    } finally {
      leave();
    }
  }

  /** One status check of `wait`: the final status, or the latest one and how long to sleep before the next. */
  private async poll(id: string, signal: AbortSignal | undefined, opts: WaitOptions, deadline: number, previous: StatusResponse | undefined):
    Promise<{ done: StatusResponse } | { last: StatusResponse | undefined; delayMs: number }> {
    let last = previous;
    let delayMs: number;
    try {
      last = await this.status(id, signal);
      opts.onStatus?.(last);
      if (TERMINAL.has(last.status)) return { done: last };
      delayMs = this.pacer.delayMs(this.pollIntervalMs);
    } catch (e) {
      const waitSec = rateLimitWaitSec(e);
      if (signal?.aborted || waitSec === null) throw e;
      delayMs = waitSec * 1000;
      this.log(`rate limited by the server; checking request ${id} again in ${delayMs / 1000} s`);
    }
    if (Date.now() + delayMs > deadline) {
      throw new Error(`gave up waiting for request ${id} after ${Math.round(this.timeoutMs / 60_000)} minutes; `
        + `it is still ${last?.status ?? 'unknown'} on the server (check later with \`shorts status ${id}\`)`);
    }
    return { last, delayMs };
  }

  /** Ctrl-C while waiting cancels the request on the server, as it does locally. */
  private async cancelForWait(id: string, last: StatusResponse | undefined): Promise<StatusResponse> {
    try {
      await this.cancel(id);
    } catch (e) {
      // Finished in the meantime: report how it ended rather than the failed cancel.
      if (!(e instanceof ShortsError && e.code === 'request_not_cancellable')) throw e;
    }
    try {
      return await this.status(id);
    } catch (e) {
      if (last) return { ...last, status: 'cancelled' };
      throw e;
    }
  }

  async status(id: string, signal?: AbortSignal): Promise<StatusResponse> {
    return this.call<StatusResponse>('GET', `shorts/${encodeURIComponent(id)}/status`, { signal });
  }

  async get(id: string): Promise<RequestDetail> {
    return this.call<RequestDetail>('GET', `shorts/${encodeURIComponent(id)}`);
  }

  async list(query: Query): Promise<{ requests: RequestListItem[]; pagination: Pagination }> {
    const data = await this.page<{ requests: RequestListItem[] }>('shorts', query, 'requests');
    return { requests: data.requests, pagination: data.pagination };
  }

  async cancel(id: string): Promise<CancelResponse> {
    return this.call<CancelResponse>('DELETE', `shorts/${encodeURIComponent(id)}`);
  }

  async rerender(id: string, shortId: string, body: EditBody): Promise<ShortObject> {
    return this.call<ShortObject>('POST', `shorts/${encodeURIComponent(id)}/shorts/${encodeURIComponent(shortId)}/render`, { json: body });
  }

  /** Polls the request (at the status interval) until the clip's `recompiling` is false. */
  async waitRerender(id: string, shortId: string, opts: RerenderWaitOptions = {}): Promise<ShortObject> {
    const deadline = Date.now() + this.timeoutMs;
    const leave = this.pacer.enter();
    try {
      return await this.pollRerender(id, shortId, opts, deadline);
    } finally {
      leave();
    }
  }

  private async pollRerender(id: string, shortId: string, opts: RerenderWaitOptions, deadline: number): Promise<ShortObject> {
    for (;;) {
      let delayMs: number;
      try {
        const detail = await this.call<RequestDetail>('GET', `shorts/${encodeURIComponent(id)}`, { signal: opts.signal });
        const short = detail.shorts.find((s) => s.id === shortId);
        if (!short) throw new ShortsError('resource_not_found', `request ${id} has no clip ${shortId}`);
        if (!short.recompiling) return short;
        delayMs = this.pacer.delayMs(this.pollIntervalMs);
      } catch (e) {
        const waitSec = rateLimitWaitSec(e);
        if (waitSec === null) throw e;
        delayMs = waitSec * 1000;
      }
      if (Date.now() + delayMs > deadline) {
        throw new Error(`gave up waiting for the re-render of clip ${shortId} after ${Math.round(this.timeoutMs / 60_000)} minutes; it is still running on the server`);
      }
      await sleep(delayMs, undefined, { signal: opts.signal });
    }
  }

  exportShort(requestId: string, shortId: string | null, format: ExportFormat) { return exportRemote(this.baseUrl, this.opts.apiKey, requestId, shortId, format); }

  async templates(): Promise<TemplateList> {
    return this.call<TemplateList>('GET', 'templates');
  }

  async music(query: Query): Promise<CatalogPage<MusicTrackItem>> {
    const data = await this.page<{ music: MusicTrackItem[] }>('music', query, 'music');
    return { items: data.music, pagination: data.pagination };
  }

  async memeHooks(query: Query): Promise<CatalogPage<MemeHookItem>> {
    const data = await this.page<{ memeHooks: MemeHookItem[] }>('meme-hooks', query, 'memeHooks');
    return { items: data.memeHooks, pagination: data.pagination };
  }

  async gameVideos(query: Query): Promise<CatalogPage<GameVideoItem>> {
    const data = await this.page<{ gameVideos: GameVideoItem[] }>('game-videos', query, 'gameVideos');
    return { items: data.gameVideos, pagination: data.pagination };
  }

  async posts(query: Query): Promise<{ posts: PostObject[]; pagination: Pagination }> {
    const data = await this.page<{ posts: PostObject[] }>('posts', query, 'posts');
    return { posts: data.posts, pagination: data.pagination };
  }

  /** A paginated list: `data` = `{ <items>: [...], pagination }`, checked before it is trusted. */
  private async page<T>(path: string, query: Query, items: string): Promise<T & { pagination: Pagination }> {
    const data = await this.call<Record<string, unknown>>('GET', path, { query });
    if (!Array.isArray(data[items]) || typeof data.pagination !== 'object' || data.pagination === null) {
      throw new Error(`the Shorts API at ${this.baseUrl} answered GET /${path} without data.${items} and data.pagination`);
    }
    return data as T & { pagination: Pagination };
  }

  /**
   * Streams a clip to a temporary file beside `dest` and renames it into place, so `dest` is either
   * the whole clip or absent. The key goes only to the API's own origin: a signed link served from
   * elsewhere (a CDN) needs no key, and should not see it.
   */
  async downloadClip(videoUrl: string, dest: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(videoUrl);
    } catch {
      throw new Error(`the clip link "${videoUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`cannot download ${videoUrl}: only http and https clip links can be fetched from a remote instance`);
    }
    const sameOrigin = url.origin === new URL(this.baseUrl).origin;
    const part = `${dest}.${process.pid}.part`;
    try {
      const stream = got.stream(url, {
        agent: this.agents,
        headers: { 'user-agent': 'shortwright-cli', ...(sameOrigin ? { 'x-api-key': this.opts.apiKey } : {}) },
        retry: { limit: 0 },
        // The bytes as stored: a clip is already compressed, and the file must match the server's.
        decompress: false,
        timeout: { connect: 15_000, response: 60_000, socket: 60_000 },
      });
      await pipeline(stream, createWriteStream(part));
      await rename(part, dest);
    } catch (e) {
      await rm(part, { force: true });
      throw this.describeDownload(e, url);
    }
  }

  private describeDownload(e: unknown, url: URL): unknown {
    const where = `${url.origin}${url.pathname}`;
    if (e instanceof HTTPError) {
      const status = e.response.statusCode;
      if (status === 403) {
        return new ShortsError('invalid_media_link', `the clip link ${where} has expired or is not valid (HTTP 403); \`shorts get <id>\` gives fresh links`);
      }
      if (status === 404) return new ShortsError('resource_not_found', `the clip ${where} is no longer on the server (HTTP 404)`);
      return new Error(`downloading ${where} failed: HTTP ${status}`);
    }
    if (e instanceof RequestError) return new Error(`cannot download ${where}: ${e.code || e.message}`);
    return e;
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
