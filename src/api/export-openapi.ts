// What the export endpoints' entries of the route table (src/api/routes.ts) say about the files: the
// format parameter and the 200, one media type per format (an export is the file, not the `{data}` envelope).
import { EXPORT_FORMATS, FORMAT_INFO, type ExportFormat } from './export-formats.js';

type Schema = Record<string, unknown>;

/** The formats of a whole request's export (one timeline); the others are one clip's. */
export const WHOLE_REQUEST_FORMATS = EXPORT_FORMATS.filter((f) => FORMAT_INFO[f].wholeRequest);

export const EXPORT_PATHS_NOTE = 'An API request\'s exports name files by their names alone (the source by the name it was submitted under, '
  + 'e.g. talk.mp4 of a file URL; captions as <shortId>.ass; fonts as fonts/), never by the server\'s paths: put the files beside the project. ';

/** The required `format` query parameter, each format described. */
export function exportFormatParam(formats: readonly ExportFormat[]): Schema {
  const describe = formats.map((f) => `${f}: ${FORMAT_INFO[f].what}`).join('; ');
  return { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: [...formats] }, description: describe };
}

/** The 200 of an export: the file itself, as an attachment with its name. */
export function exportFileAnswer(formats: readonly ExportFormat[], oneClip: boolean): { description: string; content: Schema; headers: Schema } {
  // json is the plan (an object) for a clip, the list of plans for a request; the others are files.
  const schema = (f: ExportFormat): Schema => (f === 'jpg' ? { type: 'string', format: 'binary' } : f !== 'json' ? { type: 'string' }
    : oneClip ? { type: 'object', description: 'The render plan as rendered, plus captionWords' } : { type: 'array', items: { type: 'object' } });
  return {
    description: 'The file itself (no envelope), as an attachment',
    content: Object.fromEntries(formats.map((f) => [FORMAT_INFO[f].contentType.split(';')[0]!, { schema: schema(f) }])),
    headers: { 'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename="<shortId or requestId>.<format>"' } },
  };
}
