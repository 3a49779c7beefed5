// Folder fsync, for creates and renames that must survive a crash.
import { open, type FileHandle } from 'node:fs/promises';

/** Makes a rename or create in `dir` durable; some platforms cannot fsync a folder, which is harmless. */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // EISDIR/EPERM on platforms without directory fsync: nothing more can be done there.
  } finally {
    await fh?.close();
  }
}
