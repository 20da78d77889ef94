// Where local state lives: SHORTS_DATA_DIR, else the per-user folder conf uses for our settings.
import Conf from 'conf';
import path from 'node:path';
import { setting } from '../settings.js';

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = setting('SHORTS_DATA_DIR', env);
  if (configured) return path.resolve(configured);
  const conf = new Conf({ projectName: 'shortwright', projectSuffix: '' });
  return path.dirname(conf.path);
}
