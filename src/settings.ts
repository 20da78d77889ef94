// Every SHORTS_* environment setting, declared once: name, default and meaning. Code reads them through
// setting() (a typo is a compile error, an undeclared name cannot be read), the README's Configuration table
// is printed from this list (`node scripts/settings-table.mjs`) and test/settings.test.ts fails when the two
// drift apart or when source code names a SHORTS_* variable that is not declared here. A neutral module:
// every layer may import it.

export interface SettingDeclaration {
  /** The default as a reader of the README should see it: a literal value or how it is worked out. */
  default: string;
  /** One paragraph for the README. */
  meaning: string;
}

export const SETTINGS = {
  SHORTS_DATA_DIR: {
    default: 'the per-user folder `conf` uses for `shortwright` (e.g. `~/.config/shortwright`)',
    meaning: 'All local state: the SQLite store, job folders, transcript cache, downloaded models.',
  },
  SHORTS_CONFIG_DIR: {
    default: '`SHORTS_DATA_DIR`',
    meaning: 'Where `shorts config` keeps the saved remote and API key (mode 0600).',
  },
  SHORTS_DATABASE_URL: {
    default: 'none (the SQLite store in the data dir)',
    meaning: 'A `postgresql://user:password@host:port/database` URL: all state (requests, clips, accounts, keys, the credit ledger, posts, automation, leases, idempotency keys, webhook deliveries and, without Redis, the rate-limit counters) lives in that PostgreSQL database, shared by every process given the same URL; the data dir is then only a scratch cache. `shorts db migrate` creates or upgrades its schema (any process also does on start; several at once migrate once). Standard `PG*` variables and `?sslmode=` in the URL apply as in node-postgres.',
  },
  SHORTS_WHISPER_MODEL: {
    default: '`tiny.en`',
    meaning: 'A whisper.cpp ggml model: a file path, or a model name (`tiny.en`, `base.en`, `small`, ... with optional `-q5_1`/`-q8_0`) downloaded on first use into the data dir.',
  },
  SHORTS_WHISPER_MULTILINGUAL_MODEL: {
    default: '`base-q5_1`',
    meaning: 'The multilingual whisper.cpp model (a name downloaded on first use, or a file path) that transcribes speech the `SHORTS_WHISPER_MODEL` cannot (an English-only model with a `language` other than `en`), detects the spoken language (`--language auto`, and the warning when the audio is not in the requested language) and runs the offline translate task. `off`: none; then requests in a language the main model cannot transcribe are refused with `invalid_request`.',
  },
  SHORTS_WHISPER_MODEL_BASE_URL: {
    default: 'whisper.cpp\'s Hugging Face repository',
    meaning: 'Where model names are downloaded from (a mirror).',
  },
  SHORTS_WHISPER_CLI: {
    default: 'the `whisper-cli` built at install',
    meaning: 'Use this whisper.cpp `whisper-cli` binary instead.',
  },
  SHORTS_POCKETSPHINX: {
    default: '`pocketsphinx_batch` on PATH (Debian `pocketsphinx` + `pocketsphinx-en-us`)',
    meaning: 'The pocketsphinx_batch binary that force-aligns English words to the audio (its en-us model is looked for in `../share/pocketsphinx/model/en-us` next to it); `off` keeps the energy-based word times.',
  },
  SHORTS_FFMPEG: {
    default: '`ffmpeg` on PATH, else the npm static build',
    meaning: 'The ffmpeg binary.',
  },
  SHORTS_FFPROBE: {
    default: '`ffprobe` on PATH, else the npm static build',
    meaning: 'The ffprobe binary.',
  },
  SHORTS_YTDLP: {
    default: '`yt-dlp` on PATH',
    meaning: 'The yt-dlp binary used for video-platform pages.',
  },
  SHORTS_CATALOG_DIR: {
    default: 'the shipped `assets/catalog`',
    meaning: 'Folder of the music, meme-hook and game-video catalogs (manifests and media).',
  },
  SHORTS_RENDER_SIZE: {
    default: '`1080x1920`',
    meaning: 'Output size `WxH` (even numbers); smaller for previews and tests.',
  },
  SHORTS_X264_PRESET: {
    default: '`veryfast`',
    meaning: 'x264 preset. Setting it drops the default `SHORTS_X264_PARAMS` tuning unless you also set the params.',
  },
  SHORTS_X264_PARAMS: {
    default: '`me=dia:subme=1:trellis=0` (only with the default preset)',
    meaning: 'x264 `-x264-params`; the default was measured 23 % faster than plain veryfast at the same SSIM (docs/benchmarks.md).',
  },
  SHORTS_RENDER_CONCURRENCY: {
    default: 'the number of cores',
    meaning: 'Clips rendered at once.',
  },
  SHORTS_LLM_BASE_URL: {
    default: 'none',
    meaning: 'Optional OpenAI-compatible endpoint (the `/v1` base) that re-ranks clips and rewrites titles; needs `SHORTS_LLM_MODEL`. Without it everything works.',
  },
  SHORTS_LLM_MODEL: {
    default: 'none',
    meaning: 'Model name for `SHORTS_LLM_BASE_URL`.',
  },
  SHORTS_LLM_API_KEY: {
    default: 'none',
    meaning: 'Bearer key for `SHORTS_LLM_BASE_URL`, when it needs one.',
  },
  SHORTS_TRANSLATE_URL: {
    default: 'none (with `KIND=openai`: the `SHORTS_LLM_*` endpoint)',
    meaning: 'Translation service for captions in another language (`captionLanguage` different from `language`): a LibreTranslate server root (e.g. `http://127.0.0.1:5000`; pairs come from its `/languages`) or an OpenAI-compatible `/v1` base. Translated captions keep each phrase\'s timing and are shown without per-word highlighting. English captions need none: the multilingual Whisper model translates the speech offline. Without one, or for a pair it cannot translate, requests for other caption languages are refused with `invalid_request`.',
  },
  SHORTS_TRANSLATE_KIND: {
    default: '`libretranslate`',
    meaning: '`libretranslate` or `openai`.',
  },
  SHORTS_TRANSLATE_API_KEY: {
    default: 'none (with `KIND=openai` and no URL: `SHORTS_LLM_API_KEY`)',
    meaning: 'Key for the translation service.',
  },
  SHORTS_TRANSLATE_MODEL: {
    default: 'none (with `KIND=openai` and no URL: `SHORTS_LLM_MODEL`)',
    meaning: 'Model for an OpenAI-compatible translator (required for `KIND=openai`).',
  },
  SHORTS_REMOTE: {
    default: 'none (local mode)',
    meaning: 'Use a remote instance (also `--remote` or `shorts config set remote`).',
  },
  SHORTS_API_KEY: {
    default: 'none',
    meaning: 'API key for the remote instance (also `--api-key` or `shorts config set api-key`).',
  },
  SHORTS_API_KEY_PREFIX: {
    default: 'sk_live_',
    meaning: 'Prefix of the API keys `shorts keys create` issues (1-32 of A-Z a-z 0-9 _ -; e.g. `sk_ssemble_` so existing integrations accept them). Keys issued earlier keep working.',
  },
  SHORTS_POLL_INTERVAL_MS: {
    default: '10000 (the spec\'s recommendation)',
    meaning: 'How often remote mode polls a request\'s status, in milliseconds.',
  },
  SHORTS_ALLOW_PRIVATE_URLS: {
    default: 'off',
    meaning: '`1`: development and tests only: lets loopback sources and webhooks through the URL guard (logged when on). Private, link-local and metadata addresses stay blocked.',
  },
  SHORTS_PUBLIC_URL: {
    default: 'the address `serve` listens on',
    meaning: 'Base of the media links `serve` hands out.',
  },
  SHORTS_MEDIA_TTL: {
    default: '86400',
    meaning: 'Lifetime of media links in seconds.',
  },
  SHORTS_SESSION_DAYS: {
    default: '14',
    meaning: 'Lifetime in days of a web studio sign-in (the `shorts_session` cookie); signing out, or revoking the API key signed in with, ends it sooner.',
  },
  SHORTS_STORAGE_URL: {
    default: 'none (the data dir)',
    meaning: '`s3://BUCKET/PREFIX`: the blob store (clips, covers, a job\'s checkpoints and captions) is the objects under `PREFIX/` in an S3 bucket (multipart uploads for large files), and `video_url`/`thumbnail_url` are presigned GET links straight to the bucket living `SHORTS_MEDIA_TTL` (at most 7 days). Credentials and region come from the AWS SDK\'s standard chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_PROFILE`, SSO, instance roles); failed requests are retried (`AWS_MAX_ATTEMPTS`, default 10 tries). The data dir then only keeps a cache of downloaded copies (`cache/blobs`) that may be deleted at any time.',
  },
  SHORTS_S3_ENDPOINT: {
    default: 'AWS S3',
    meaning: 'The endpoint of an S3-compatible store (MinIO, Ceph, R2, ...), e.g. `http://127.0.0.1:9000`.',
  },
  SHORTS_S3_FORCE_PATH_STYLE: {
    default: 'off',
    meaning: '`1`: path-style requests (`ENDPOINT/BUCKET/KEY`) instead of `BUCKET.ENDPOINT`; most S3-compatible stores need it.',
  },
  SHORTS_WORKERS: {
    default: '1 (one job already uses every core)',
    meaning: 'Jobs `serve` runs at once (0: none, an API-only process beside `shorts worker`s); `--workers` wins.',
  },
  SHORTS_LEASE_TTL: {
    default: '30',
    meaning: 'Seconds a process\'s hold on a request, re-render, post or batch folder lasts without a heartbeat (renewed every third of it). Another `serve`, runner or `shorts wait` on the same data dir takes over work whose holder was killed only after this long; a clean stop hands it over at once.',
  },
  SHORTS_REDIS_URL: {
    default: 'none (the counters live in the SQLite store)',
    meaning: 'BullMQ on Redis for the queues and Redis for the counters API processes share (rate limits); optional. `redis://[:password@]host:port[/db]` (`rediss://` for TLS).',
  },
  SHORTS_METRICS_TOKEN: {
    default: 'none (`/metrics` answers loopback callers only)',
    meaning: 'Bearer token that `GET /metrics` (Prometheus text format) requires; set, any host presenting `Authorization: Bearer <token>` may read it. Unset, only callers on loopback without a proxy\'s forwarding header may: behind a reverse proxy on the same machine, set a token.',
  },
  SHORTS_DEBUG: {
    default: 'off',
    meaning: '`1`: the CLI prints stack traces of internal errors.',
  },
  SHORTS_SECRET_KEY: {
    default: 'generated on first use into `<data dir>/secret.key` (mode 0600): back that file up',
    meaning: 'The 32-byte key (64 hex digits or base64) that encrypts connected accounts\' platform tokens at rest. Without the key they were written with, saved tokens cannot be read and every account must be connected again. Required with `SHORTS_DATABASE_URL`: every process of a deployment must use the same key.',
  },
  SHORTS_OAUTH_VIDEO_SITE_CLIENT_ID: {
    default: 'none (`shorts accounts connect video_site` refused; `accounts add` with tokens still works)',
    meaning: 'The client id of the operator\'s own OAuth app on video_site, used to connect accounts and refresh their tokens.',
  },
  SHORTS_OAUTH_VIDEO_SITE_CLIENT_SECRET: {
    default: 'none',
    meaning: 'The client secret of that video_site OAuth app.',
  },
  SHORTS_OAUTH_PHOTO_SITE_CLIENT_ID: {
    default: 'none (`shorts accounts connect photo_site` refused; `accounts add` with tokens still works)',
    meaning: 'The client id of the operator\'s own OAuth app on photo_site, used to connect accounts and refresh their tokens.',
  },
  SHORTS_OAUTH_PHOTO_SITE_CLIENT_SECRET: {
    default: 'none',
    meaning: 'The client secret of that photo_site OAuth app.',
  },
  SHORTS_OAUTH_SHORT_VIDEO_SITE_CLIENT_ID: {
    default: 'none (`shorts accounts connect short_video_site` refused; `accounts add` with tokens still works)',
    meaning: 'The client id of the operator\'s own OAuth app on short_video_site, used to connect accounts and refresh their tokens.',
  },
  SHORTS_OAUTH_SHORT_VIDEO_SITE_CLIENT_SECRET: {
    default: 'none',
    meaning: 'The client secret of that short_video_site OAuth app.',
  },
  SHORTS_PLATFORM_URL_VIDEO_SITE: {
    default: 'the real service',
    meaning: 'Replaces the scheme and host (and port) of every URL the video_site connector calls (API, upload and token endpoints alike), keeping the real paths: a proxy, a sandbox or a test server.',
  },
  SHORTS_PLATFORM_URL_PHOTO_SITE: {
    default: 'the real service',
    meaning: 'Replaces the scheme and host (and port) of every URL the photo_site connector calls (API, upload and token endpoints alike), keeping the real paths: a proxy, a sandbox or a test server.',
  },
  SHORTS_PLATFORM_URL_SHORT_VIDEO_SITE: {
    default: 'the real service',
    meaning: 'Replaces the scheme and host (and port) of every URL the short_video_site connector calls (API, upload and token endpoints alike), keeping the real paths: a proxy, a sandbox or a test server.',
  },
} as const satisfies Record<`SHORTS_${string}`, SettingDeclaration>;

export type SettingName = keyof typeof SETTINGS;

/** The setting's value from `env`; undefined when unset or blank (the caller applies the declared default). */
export function setting(name: SettingName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

/** The value exactly as set, blank included: for settings where an empty value means "none" (SHORTS_X264_PARAMS). */
export function rawSetting(name: SettingName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[name];
}

/** The README's Configuration table, one row per setting, in declaration order. */
export function settingsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = (Object.entries(SETTINGS) as [SettingName, SettingDeclaration][])
    .map(([name, d]) => `| \`${name}\` | ${cell(d.default)} | ${cell(d.meaning)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
