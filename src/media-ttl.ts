// The lifetime of media links (SHORTS_MEDIA_TTL): serve's own signed /media links and the blob store's
// presigned links (S3) live the same time. A neutral module: the server and the composition root both read it.

export const DEFAULT_MEDIA_TTL_SEC = 24 * 3600;

/** SHORTS_MEDIA_TTL: whole seconds >= 1; unset or empty gives the default (24 h). */
export function parseMediaTtl(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_MEDIA_TTL_SEC;
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`SHORTS_MEDIA_TTL must be a whole number of seconds >= 1, got "${value}"`);
  return n;
}
