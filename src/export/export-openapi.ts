// The OpenAPI paths of the export endpoints, for openapi.ts to spread into its `paths`: built with its own
// `operation` (rate-limit headers, error bodies), then the 200 is replaced by the files themselves, one
// media type per format (an export is the file, not the `{data}` envelope).
import { EXPORT_FORMATS, FORMAT_INFO, type ExportFormat } from './formats.js';

type Schema = Record<string, unknown>;
type ErrorCodeName = 'invalid_request' | 'resource_not_found' | 'short_not_editable';
interface ExportOperationDef {
  operationId: string; summary: string; description: string; tag: string; limiter: 'statusCheck';
  ok: { status: number; schema: string; description: string }; errors: readonly ErrorCodeName[]; parameters: Schema[];
}

const PATHS_NOTE = 'An API request\'s exports name files by their names alone (the source by the name it was submitted under, '
  + 'e.g. talk.mp4 of a file URL; captions as <shortId>.ass; fonts as fonts/), never by the server\'s paths: put the files beside the project. ';

export function exportOpenApiPaths(operation: (d: ExportOperationDef) => Schema, idParam: Schema): Record<string, Schema> {
  const shortIdParam: Schema = { name: 'shortId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'The clip\'s id (`shorts[].id`)' };
  const describe = (formats: readonly ExportFormat[]) => formats.map((f) => `${f}: ${FORMAT_INFO[f].what}`).join('; ');
  const whole = EXPORT_FORMATS.filter((f) => FORMAT_INFO[f].wholeRequest);
  const op = (operationId: string, summary: string, description: string, formats: readonly ExportFormat[], parameters: Schema[]): Schema => {
    const o = operation({
      operationId, summary, description: description + PATHS_NOTE, tag: 'shorts', limiter: 'statusCheck',
      ok: { status: 200, schema: 'Short', description: 'The file' }, errors: ['invalid_request', 'resource_not_found', 'short_not_editable'],
      parameters: [...parameters, { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: [...formats] }, description: describe(formats) }],
    });
    const ok = (o.responses as Record<string, Schema>)['200']!;
    ok.description = 'The file itself (no envelope), as an attachment';
    // json is the plan (an object) for a clip, the list of plans for a request; the others are files.
    const schema = (f: ExportFormat): Schema => (f === 'jpg' ? { type: 'string', format: 'binary' } : f !== 'json' ? { type: 'string' }
      : parameters.length > 1 ? { type: 'object', description: 'The render plan as rendered, plus captionWords' } : { type: 'array', items: { type: 'object' } });
    ok.content = Object.fromEntries(formats.map((f) => [FORMAT_INFO[f].contentType.split(';')[0]!, { schema: schema(f) }]));
    ok.headers = { ...(ok.headers as Schema | undefined), 'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename="<shortId or requestId>.<format>"' } };
    return o;
  };
  return {
    '/shorts/{id}/shorts/{shortId}/export': {
      get: op('exportShort', 'Export one clip: captions, render plan, editor project or cover (extension)',
        'Captions in the MP4\'s time (SRT, WebVTT; the ASS file as burned in), the render plan as rendered (json), and editor projects '
        + '(CMX3600 EDL, FCPXML, MLT for Shotcut/Kdenlive) placing the source\'s range on the vertical timeline with the crop path as keyframes '
        + 'and the captions as a caption track; jpg is the cover. 409 while the request is not completed; 404 for a clip that failed, or a '
        + 'file the clip does not have (captions of a clip rendered without them). ', EXPORT_FORMATS, [idParam, shortIdParam]),
    },
    '/shorts/{id}/export': {
      get: op('exportRequest', 'Export every clip of a request on one timeline (extension)',
        'Every clip that rendered, in rank order, one after the other: the timelines (edl, fcpxml, mlt), the captions on that timeline\'s clock '
        + '(srt, vtt) and the list of render plans (json). ass and jpg are one clip\'s: 400, use the clip\'s export. ', whole, [idParam]),
    },
  };
}
