// A dns.lookup replacement that can only answer with addresses the URL guard already approved. Handing
// it to a connection (got's `dnsLookup`, an http.Agent's `lookup`) closes the gap between "the name
// resolved to a public address when we checked" and "the socket connected to whatever the name
// resolves to now": a second, rebound DNS answer is never asked for.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function notFound(hostname: string, family: number | undefined): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`no checked ${family ? `IPv${family} ` : ''}address for ${hostname}`);
  e.code = 'ENOTFOUND';
  e.syscall = 'getaddrinfo';
  return e;
}

/**
 * dns.lookup-compatible: `(hostname, [options | family], callback)`, with `all: true` answering every
 * pinned address and otherwise the first one; `family` 4 or 6 narrows the list. The hostname asked for
 * is ignored on purpose: the pin belongs to one checked URL, and a connection made with it goes there.
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries: LookupAddress[] = addresses.map((raw) => {
    const address = raw.replace(/^\[|\]$/g, '');
    const family = isIP(address.split('%')[0]!);
    if (family === 0) throw new TypeError(`not an IP address: ${raw}`);
    return { address, family };
  });
  const lookup = (hostname: string, optionsOrCallback: LookupOptions | number | LookupCallback, maybeCallback?: LookupCallback): void => {
    const callback = typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback;
    if (!callback) throw new TypeError('pinnedLookup needs a callback');
    const options: LookupOptions = typeof optionsOrCallback === 'number' ? { family: optionsOrCallback }
      : typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const matching = family === 4 || family === 6 ? entries.filter((e) => e.family === family) : entries;
    // Asynchronous like the real lookup: net's connect code expects the callback on a later tick.
    process.nextTick(() => {
      if (matching.length === 0) {
        callback(notFound(hostname, family || undefined), options.all ? [] : '', undefined);
      } else if (options.all) {
        callback(null, matching.map((e) => ({ ...e })));
      } else {
        callback(null, matching[0]!.address, matching[0]!.family);
      }
    });
  };
  return lookup as LookupFunction;
}
