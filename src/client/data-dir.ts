// Where local state lives: SHORTS_DATA_DIR, else the per-user folder conf uses for our settings.
import Conf from 'conf';
import path from 'node:path';

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SHORTS_DATA_DIR) return path.resolve(env.SHORTS_DATA_DIR);
  const conf = new Conf({ projectName: 'shortwright', projectSuffix: '' });
  return path.dirname(conf.path);
}
