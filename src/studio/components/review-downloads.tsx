// Downloads of one clip (its MP4, cover, captions and editor projects) and of the whole request (every clip on
// one timeline). Plain links: the session cookie goes with them, and the export answers name their files.
import type { ShortObject } from '../../api/types';
import { CLIP_EXPORTS, clipExportUrl, requestExportUrl, type ExportEntry } from './review-format';

function ExportLinks({ entries, href, what }: { entries: readonly ExportEntry[]; href: (format: string) => string; what: string }) {
  return (
    <>
      {entries.map((e) => (
        <li key={e.format}>
          <a href={href(e.format)} download aria-label={`${e.label} ${what}`}>{e.label}</a>
        </li>
      ))}
    </>
  );
}

const CAPTIONS = CLIP_EXPORTS.filter((e) => e.group === 'captions');
const PROJECTS = CLIP_EXPORTS.filter((e) => e.group === 'projects');

export function ClipDownloads({ requestId, clip, videoUrl, coverUrl, exportable, what }: {
  requestId: string; clip: ShortObject; videoUrl: string; coverUrl: string; exportable: boolean; what: string;
}) {
  const href = (format: string) => clipExportUrl(requestId, clip.id, format);
  return (
    <details class="review-downloads">
      <summary>Downloads<span class="visually-hidden"> {what}</span></summary>
      <div class="review-download-groups">
        <div>
          <p class="review-group-name" id={`dl-${clip.id}-media`}>Media</p>
          <ul aria-labelledby={`dl-${clip.id}-media`}>
            <li><a href={videoUrl} download={`${clip.id}.mp4`} aria-label={`Video (MP4) ${what}`}>Video (MP4)</a></li>
            {coverUrl && <li><a href={coverUrl} download={`${clip.id}.jpg`} aria-label={`Cover image (JPG) ${what}`}>Cover image (JPG)</a></li>}
          </ul>
        </div>
        {exportable ? (
          <>
            <div>
              <p class="review-group-name" id={`dl-${clip.id}-captions`}>Captions</p>
              <ul aria-labelledby={`dl-${clip.id}-captions`}><ExportLinks entries={CAPTIONS} href={href} what={what} /></ul>
            </div>
            <div>
              <p class="review-group-name" id={`dl-${clip.id}-projects`}>Editor projects</p>
              <ul aria-labelledby={`dl-${clip.id}-projects`}><ExportLinks entries={PROJECTS} href={href} what={what} /></ul>
            </div>
          </>
        ) : (
          <p class="muted">Captions and editor projects can be downloaded once the request is completed.</p>
        )}
      </div>
    </details>
  );
}

const WHOLE = CLIP_EXPORTS.filter((e) => e.whole);

/** Every clip that rendered, in rank order, one after the other. */
export function RequestDownloads({ requestId }: { requestId: string }) {
  return (
    <details class="review-downloads review-request-downloads">
      <summary>Export all clips</summary>
      <p class="muted">Every clip in rank order on one timeline: captions on that timeline, or one editor project.</p>
      <ul>
        <ExportLinks entries={WHOLE} href={(f) => requestExportUrl(requestId, f)} what="for all clips" />
      </ul>
    </details>
  );
}
