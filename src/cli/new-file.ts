import { link, rename, rm } from 'node:fs/promises';
import { exists, writeTemp } from '../projections/writer.js';
import { InputError } from './io.js';

/**
 * Writes a new file atomically without ever replacing one: a fsynced temp file in the same folder
 * is hard-linked to the name (which fails if the name exists), then removed. Where the file
 * system has no hard links, falls back to check-then-rename. `command` names the refusal.
 */
export async function writeNewFile(path: string, content: Uint8Array | string, command = 'export'): Promise<void> {
  const taken = () => new InputError(`evalog ${command}: ${path} exists already; choose a new --out (evalog never overwrites an export)`);
  const tmp = await writeTemp(path, content);
  try {
    await link(tmp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      await rm(tmp, { force: true });
      throw taken();
    }
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') {
      await rm(tmp, { force: true });
      throw err;
    }
    if (await exists(path)) {
      await rm(tmp, { force: true });
      throw taken();
    }
    await rename(tmp, path);
    return;
  }
  await rm(tmp, { force: true });
}
