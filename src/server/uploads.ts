// Resumable uploads (issue 25): the tus 1.0 protocol (@tus/server) at /api/v1/uploads, behind the server's key
// check like every /api/v1 route. An upload is its account's: the id in the URL is a random 32-hex name, and
// the datastore's id joins it to the caller's account (src/app/upload-store.ts), so another account's id is
// simply not found (404). Creation requires Upload-Length (at most the spec's 10 GB file limit) and refuses a
// `filetype` that is not video; a finished upload becomes the blob `uploads/<account>/<id>` with what is known
// of it beside it (src/engine/uploads.ts), which POST /shorts/create takes as `uploadId`.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { Server, type ServerOptions } from '@tus/server';
import type { BlobStore } from '../ports/blob-store.js';
import { API_BASE } from '../api/routes.js';
import { DEFAULT_MAX_BYTES } from '../net/download.js';
import { uploadInfoKey, type UploadInfo } from '../engine/uploads.js';
import type { UploadStaging } from '../app/upload-store.js';

/** The Fetch-style request @tus/server hands its hooks (srvx's, over Node's IncomingMessage). */
type ServerRequest = Parameters<NonNullable<ServerOptions['namingFunction']>>[0];

export const UPLOADS_PATH = `${API_BASE}/uploads`;
const UPLOAD_ID = /^[0-9a-f]{32}$/;
/** How often unfinished uploads past their expiry are swept. */
const SWEEP_EVERY_MS = 3600 * 1000;

export interface UploadsHandler {
  handle(req: http.IncomingMessage, res: http.ServerResponse, accountId: string): Promise<void>;
  close(): void;
}

/** A tus answer with a body: the API's error envelope (tus clients show the body as the failure's text). */
function refusal(status: number, code: string, message: string): { status_code: number; body: string } {
  return { status_code: status, body: JSON.stringify({ error: { code, message } }) };
}

export function uploadsHandler(staging: UploadStaging, blobs: BlobStore, log: (line: string) => void): UploadsHandler {
  // The account each request is answered for: set by the key check, read by the tus hooks (never a client header).
  const accounts = new WeakMap<http.IncomingMessage, string>();
  const accountOf = (req: ServerRequest): string => {
    const node = req.runtime?.node?.req;
    const id = node && accounts.get(node as http.IncomingMessage);
    if (!id) throw new Error('an upload request reached tus without its account');
    return id;
  };
  // Both datastores' ids end with the URL's 32-hex name.
  const lastSegment = (id: string) => id.slice(-32);
  const server = new Server({
    path: UPLOADS_PATH,
    datastore: staging.datastore,
    maxSize: DEFAULT_MAX_BYTES,
    namingFunction: (req) => staging.idOf(accountOf(req), randomBytes(16).toString('hex')),
    // The URL names the upload by its random part only; the account comes from the key.
    generateUrl: (_req, { proto, host, path, id }) => `${proto}://${host}${path}/${lastSegment(id)}`,
    getFileIdFromRequest: (req, lastPath) => (lastPath && UPLOAD_ID.test(lastPath) ? staging.idOf(accountOf(req), lastPath) : undefined),
    onUploadCreate: async (_req, upload) => {
      if (upload.sizeIsDeferred || upload.size === undefined) throw refusal(400, 'invalid_request', 'Upload-Length is required');
      const type = upload.metadata?.filetype ?? '';
      if (type && !/^video\//i.test(type)) throw refusal(415, 'invalid_request', `only video files can be uploaded, not ${type.slice(0, 100)}`);
      return { metadata: upload.metadata ?? {} };
    },
    onUploadFinish: async (req, upload) => {
      const accountId = accountOf(req);
      const uploadId = lastSegment(upload.id);
      await staging.finish(accountId, uploadId);
      const info: UploadInfo = { filename: (upload.metadata?.filename ?? '').slice(0, 255), filetype: upload.metadata?.filetype ?? 'video/mp4', size: upload.size ?? upload.offset };
      await blobs.put(uploadInfoKey(accountId, uploadId), JSON.stringify(info));
      return {};
    },
    onResponseError: (_req, err) => {
      // The spec's code for a file over its 10 GB limit, where tus answers 413.
      if ('status_code' in err && err.status_code === 413) return refusal(413, 'file_too_large', `an upload is at most ${DEFAULT_MAX_BYTES} bytes (10 GB)`);
      if (!('status_code' in err)) log(`upload: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return undefined;
    },
  });
  const sweep = setInterval(() => {
    server.cleanUpExpiredUploads().catch((e: unknown) => log(`upload expiry sweep: ${e instanceof Error ? e.message : String(e)}`));
  }, SWEEP_EVERY_MS);
  sweep.unref();
  return {
    handle: async (req, res, accountId) => {
      accounts.set(req, accountId);
      await server.handle(req, res);
    },
    close: () => clearInterval(sweep),
  };
}
