import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ViewerAssetsMissingError } from './errors.js';

/**
 * The app lives in `viewer/` at the package root: two levels above this module both in `src/view/`
 * (run from source) and in `dist/view/` (built), and listed in package.json `files`, because tsc
 * copies only what it compiles.
 */
export const ASSETS_DIR = fileURLToPath(new URL('../../viewer/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** A static file as served. */
export interface Asset {
  type: string;
  body: Buffer;
}

/**
 * Loads every asset once, keyed by URL path. Only these keys are ever served, so no request path
 * can reach a file outside the folder (or inside it, if it is not an asset type).
 */
export async function loadAssets(dir = ASSETS_DIR): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true })) as string[];
  } catch (err) {
    throw new ViewerAssetsMissingError(dir, { cause: err });
  }
  for (const name of names.sort()) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const path = join(dir, name);
    assets.set(`/${relative(dir, path).split(sep).join('/')}`, { type, body: await readFile(path) });
  }
  if (!assets.has('/index.html')) throw new ViewerAssetsMissingError(dir);
  return assets;
}
