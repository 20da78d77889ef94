// Edits an MP4's header in place of a real long file: tests of length limits need a file that claims
// hours without hours of bytes (what a hostile or broken upload looks like).
import { readFileSync, writeFileSync } from 'node:fs';

/** Sets the movie header's duration (mvhd, version 0) of an MP4 to `seconds`: the streams stay as they are. */
export function claimDuration(src: string, dest: string, seconds: number): string {
  const b = Buffer.from(readFileSync(src));
  const walk = (from: number, to: number): boolean => {
    for (let at = from; at + 8 <= to;) {
      const size = b.readUInt32BE(at);
      const type = b.toString('latin1', at + 4, at + 8);
      if (type === 'mvhd') {
        if (b[at + 8] !== 0) throw new Error('mvhd version 1 not handled');
        b.writeUInt32BE(Math.round(seconds * b.readUInt32BE(at + 20)), at + 24);
        return true;
      }
      if (type === 'moov' && walk(at + 8, at + size)) return true;
      if (size < 8) return false;
      at += size;
    }
    return false;
  };
  if (!walk(0, b.length)) throw new Error('no mvhd box');
  writeFileSync(dest, b);
  return dest;
}
