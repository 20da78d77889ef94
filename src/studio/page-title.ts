// The tab's title, per view: what a person sees among their tabs and what a screen reader announces first.
import { useEffect } from 'preact/hooks';

const APP = 'shortwright studio';

export function setPageTitle(title: string): void {
  document.title = title ? `${title} · ${APP}` : APP;
}

/** Sets the title while the view shows it (views that know more than the shell's fallback, e.g. a request's name). */
export function usePageTitle(title: string): void {
  useEffect(() => setPageTitle(title), [title]);
}
