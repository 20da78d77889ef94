// The resumable upload of a picked video (tus 1.0 at /api/v1/uploads). tus-js-client keeps each file's
// upload URL in localStorage under the file's fingerprint (name, size, type, modification time): picking
// the same file again after a reload or a lost connection continues where it stopped. It stores URLs only;
// the session cookie goes along by itself (same origin), so no key is ever in the page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Upload, type DetailedError } from 'tus-js-client';

export type UploadState =
  | { phase: 'idle' }
  | { phase: 'uploading' | 'paused'; sent: number; total: number; speed: number | null; resumed: boolean }
  | { phase: 'done'; uploadId: string; total: number; resumed: boolean }
  | { phase: 'error'; message: string; sent: number; total: number };

/** Chunks keep each request small enough for proxies' body limits and make retries cheap. */
const CHUNK_BYTES = 32 * 1024 * 1024;
/** Waits between retries of a failed chunk (ms), then the error is shown with "Try again". */
const RETRY_DELAYS = [0, 1000, 3000, 5000, 10000, 20000];
/** Speed over the last few seconds: steadier than per-chunk, quicker than the whole upload. */
const SPEED_WINDOW_MS = 5000;

/** The server's own words from a failed tus request, else why it failed. */
function uploadMessage(err: Error): string {
  const res = (err as DetailedError).originalResponse;
  if (res) {
    const status = res.getStatus();
    try {
      const body = JSON.parse(res.getBody()) as { error?: { message?: string } };
      if (body.error?.message) return body.error.message;
    } catch {
      // Not the API's JSON envelope: fall through to the status.
    }
    if (status === 401) return 'Your session ended. Sign in again, then pick the file again to continue the upload.';
    if (status === 413) return 'The file is too large for the server.';
    return `The upload failed: the server answered ${status}.`;
  }
  return 'The upload was interrupted: the server could not be reached. Try again to continue where it stopped.';
}

export function useTusUpload() {
  const [state, setState] = useState<UploadState>({ phase: 'idle' });
  const upload = useRef<Upload | null>(null);
  const samples = useRef<{ t: number; bytes: number }[]>([]);
  const resumed = useRef(false);

  // Leaving the view stops sending (the stored URL lets a later visit continue).
  useEffect(() => () => void upload.current?.abort(), []);

  function speedAfter(bytes: number): number | null {
    const now = performance.now();
    const s = samples.current;
    s.push({ t: now, bytes });
    while (s.length > 2 && now - s[0]!.t > SPEED_WINDOW_MS) s.shift();
    const first = s[0]!;
    return now - first.t > 250 ? ((bytes - first.bytes) * 1000) / (now - first.t) : null;
  }

  async function start(file: File): Promise<void> {
    await upload.current?.abort();
    samples.current = [];
    resumed.current = false;
    const u = new Upload(file, {
      endpoint: '/api/v1/uploads',
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS,
      metadata: { filename: file.name, filetype: file.type || 'application/octet-stream' },
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => setState((prev) => ({
        phase: prev.phase === 'paused' ? 'paused' : 'uploading', sent, total, speed: speedAfter(sent), resumed: resumed.current,
      })),
      onSuccess: () => {
        // The finished upload's id is the last path segment of its Location (the contract).
        const id = (u.url ?? '').replace(/\/+$/, '').split('/').pop() ?? '';
        setState({ phase: 'done', uploadId: decodeURIComponent(id), total: file.size, resumed: resumed.current });
      },
      onError: (err) => setState((prev) => ({
        phase: 'error', message: uploadMessage(err),
        sent: 'sent' in prev ? prev.sent : 0, total: file.size,
      })),
    });
    upload.current = u;
    setState({ phase: 'uploading', sent: 0, total: file.size, speed: null, resumed: false });
    try {
      const previous = await u.findPreviousUploads();
      const latest = previous.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
      if (latest) {
        resumed.current = true;
        u.resumeFromPreviousUpload(latest);
      }
    } catch {
      // No storage (private window): the upload simply starts from the beginning.
    }
    if (upload.current === u) u.start();
  }

  function pause(): void {
    void upload.current?.abort();
    samples.current = [];
    setState((prev) => (prev.phase === 'uploading' ? { ...prev, phase: 'paused', speed: null } : prev));
  }

  function resume(): void {
    const u = upload.current;
    if (!u) return;
    setState((prev) => ('sent' in prev
      ? { phase: 'uploading', sent: prev.sent, total: prev.total, speed: null, resumed: resumed.current }
      : prev));
    u.start();
  }

  /** Stops and asks the server to delete what it received (tus termination); forgets the stored URL. */
  async function cancel(): Promise<void> {
    const u = upload.current;
    upload.current = null;
    setState({ phase: 'idle' });
    if (!u) return;
    await u.abort(true).catch(() => {
      // The server may not offer termination, or the upload never began: what it kept expires on its own.
    });
  }

  /** Forgets a finished upload (another file was picked, or the source changed). */
  function reset(): void {
    void upload.current?.abort();
    upload.current = null;
    setState({ phase: 'idle' });
  }

  return { state, start, pause, resume, cancel, reset };
}
