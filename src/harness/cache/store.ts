import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hashOf } from '../../core/canonical.js';
import { ProviderCallSucceeded } from '../../events/index.js';
import { writeAtomic } from '../../projections/writer.js';
import type { AttemptResult } from '../../providers/caller.js';

/** A stored response: a success's data without its call id, latency or cache mark (the hit records its own). */
export type CachedResponse = Omit<Extract<AttemptResult, { ok: true }>['data'], 'latencyMs' | 'cached'>;

/** Where responses are kept by request key. Neither throws: what cannot be read is a miss, what cannot be written is a warning. */
export interface ResponseStore {
  get(key: string): Promise<CachedResponse | null>;
  put(key: string, response: CachedResponse): Promise<void>;
}

const ENTRY_FORMAT = 'evalog-cache/1';
const responseShape = ProviderCallSucceeded.shape.data.omit({ callId: true, latencyMs: true, cached: true }).strict();
const entryShape = z.object({ format: z.literal(ENTRY_FORMAT), key: z.string(), response: z.unknown(), sha256: z.string() }).strict();

/**
 * The cache folder: one JSON file per entry, `<dir>/<key[0..2]>/<key>.json`, written atomically
 * (temp file + rename), holding the response and a sha256 of itself, so a torn, edited or foreign
 * file is noticed. A damaged or unreadable entry is a miss with one warning (`warn`), never an answer.
 */
export function folderStore(dir: string, warn: (message: string) => void): ResponseStore {
  const pathOf = (key: string) => join(dir, key.slice(0, 2), `${key}.json`);
  let ignored = false;
  return {
    async get(key) {
      const path = pathOf(key);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          warn(`cache entry ${path} is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'}); calling the model instead`);
        return null;
      }
      const problem = entryProblem(text, key);
      if (typeof problem === 'string') {
        warn(`cache entry ${path} is damaged (${problem}); calling the model instead`);
        return null;
      }
      return problem;
    },
    async put(key, response) {
      // Responses are local data, as a run's log is: the folder keeps itself out of version control.
      if (!ignored) {
        ignored = true;
        await mkdir(dir, { recursive: true })
          .then(() => writeFile(join(dir, '.gitignore'), '*\n', { flag: 'wx' }))
          .catch(() => {});
      }
      const entry = { format: ENTRY_FORMAT, key, response };
      // A cache that cannot take an entry costs a later run a call, never this one its answer.
      await writeAtomic(pathOf(key), `${JSON.stringify({ ...entry, sha256: hashOf(entry) })}\n`).catch((err: unknown) =>
        warn(`cannot write cache entry ${pathOf(key)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`),
      );
    },
  };
}

/** The entry's response, or what is wrong with it. */
function entryProblem(text: string, key: string): CachedResponse | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const entry = entryShape.safeParse(raw);
  if (!entry.success) return `field ${entry.error.issues[0]?.path.join('.') || 'entry'}`;
  const { sha256, ...rest } = entry.data;
  if (rest.key !== key) return 'it holds another key';
  if (hashOf(rest) !== sha256) return 'its sha256 does not match';
  const response = responseShape.safeParse(rest.response);
  if (!response.success) return `field response.${response.error.issues[0]?.path.join('.') ?? ''}`;
  return response.data as CachedResponse;
}
