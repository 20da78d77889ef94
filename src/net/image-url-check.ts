// The creation-time network check of outroImageUrl on `serve`: the server downloads the card image when
// it renders, so its host must resolve to public addresses only, like the file, page and webhook URLs
// (spec 4.2). Refused at creation it costs the caller nothing; refused at render it failed the request
// after a credit was charged. The download itself goes through the guard again (redirects, rebinding).
import { ShortsError } from '../errors.js';
import { checkPublicUrl, UrlGuardError, type GuardOptions } from './url-guard.js';

/**
 * Throws ShortsError('invalid_request', details.field 'outroImageUrl') for a URL the guard refuses: not
 * http(s), a host that does not resolve, or any address that is not public. Connects to nothing.
 */
export async function checkImageUrl(raw: string, opts?: GuardOptions): Promise<URL> {
  try {
    return (await checkPublicUrl(raw, opts)).url;
  } catch (e) {
    if (e instanceof UrlGuardError) {
      throw new ShortsError('invalid_request', `outroImageUrl is refused: ${e.message}`, { field: 'outroImageUrl', reason: e.reason });
    }
    throw e;
  }
}
