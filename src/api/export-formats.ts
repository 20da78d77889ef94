// The export formats (issue 14): what each one is, its media type and file extension, and whether it
// exists for one clip, for a whole request, or both. The HTTP route, the CLI and the service all read
// this one table, so a format cannot be served under one name and refused under another.

export const EXPORT_FORMATS = ['srt', 'vtt', 'ass', 'json', 'edl', 'fcpxml', 'mlt', 'jpg'] as const;
export type ExportFormat = typeof EXPORT_FORMATS[number];

export interface ExportFormatInfo {
  contentType: string;
  extension: string;
  /** Text formats go to stdout when the CLI has no --out; jpg never does. */
  text: boolean;
  /**
   * Whether a whole request (no short id) can be exported: the timelines put every clip one after the
   * other, SRT/WebVTT follow that timeline, json is the list of plans. An ASS file is one clip's
   * document (its own styles and play size) and a cover is one clip's picture: those need the short id.
   */
  wholeRequest: boolean;
  what: string;
}

export const FORMAT_INFO: Record<ExportFormat, ExportFormatInfo> = {
  srt: { contentType: 'application/x-subrip; charset=utf-8', extension: 'srt', text: true, wholeRequest: true, what: 'captions (SubRip)' },
  vtt: { contentType: 'text/vtt; charset=utf-8', extension: 'vtt', text: true, wholeRequest: true, what: 'captions (WebVTT)' },
  ass: { contentType: 'text/x-ssa; charset=utf-8', extension: 'ass', text: true, wholeRequest: false, what: 'the burned-in captions as rendered (Advanced SubStation Alpha)' },
  json: { contentType: 'application/json; charset=utf-8', extension: 'json', text: true, wholeRequest: true, what: 'the render plan as rendered, with the caption words numbered' },
  edl: { contentType: 'text/plain; charset=utf-8', extension: 'edl', text: true, wholeRequest: true, what: 'an edit decision list (CMX3600)' },
  fcpxml: { contentType: 'application/xml; charset=utf-8', extension: 'fcpxml', text: true, wholeRequest: true, what: 'a Final Cut Pro / DaVinci Resolve project (FCPXML 1.10)' },
  mlt: { contentType: 'application/xml; charset=utf-8', extension: 'mlt', text: true, wholeRequest: true, what: 'a Shotcut / Kdenlive project (MLT XML)' },
  jpg: { contentType: 'image/jpeg', extension: 'jpg', text: false, wholeRequest: false, what: 'the cover image' },
};

export function isExportFormat(v: unknown): v is ExportFormat {
  return typeof v === 'string' && (EXPORT_FORMATS as readonly string[]).includes(v);
}

/** One exported file, whatever produced it: what the HTTP route sends and the CLI writes. */
export interface ExportFile {
  contentType: string;
  filename: string;
  body: Buffer;
}
