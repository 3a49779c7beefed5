// The files a promptfoo config references (`file://prompt.txt`, `file://tests.csv`), read through one
// collector so the run's suite-file hash covers every byte the suite was built from: an edited prompt
// or test file is refused by resume and replay as an edited config is.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { refuse, type Where } from './errors.js';

/** One file read while compiling: its path as messages show it, and its bytes. */
export interface SourceFile {
  shown: string;
  bytes: Buffer;
}

/** Prefix of a reference to a file. */
export const FILE_PREFIX = 'file://';

/** Reads the config and the files it references, relative to the config's folder; keeps what it read. */
export class Sources {
  readonly files: SourceFile[] = [];
  readonly baseDir: string;

  constructor(
    readonly configPath: string,
    readonly cwd: string,
  ) {
    this.baseDir = dirname(configPath);
  }

  /** The file a `file://` reference names (absolute) and how messages show it; refuses globs and function suffixes. */
  resolve(where: Where, ref: string): { absolute: string; shown: string } {
    const raw = ref.slice(FILE_PREFIX.length).trim();
    if (raw === '') throw refuse(where, `${JSON.stringify(ref)} names no file`);
    if (/[*?[\]{}]/.test(raw)) throw refuse(where, `${JSON.stringify(ref)}: glob patterns are not supported (name each file)`);
    if (/\.(js|cjs|mjs|ts|py)(:|$)/i.test(raw)) throw refuse(where, `${JSON.stringify(ref)}: code files (JavaScript, TypeScript, Python) are not supported`);
    const absolute = isAbsolute(raw) ? raw : resolve(this.baseDir, raw);
    return { absolute, shown: shownPath(absolute, this.cwd) };
  }

  /** The referenced file's text (UTF-8, BOM stripped); refuses a missing or unreadable file. */
  text(where: Where, ref: string): { text: string; shown: string } {
    const { absolute, shown } = this.resolve(where, ref);
    return { text: this.read(where, absolute, shown), shown };
  }

  /** Reads a file by absolute path, recording it. */
  read(where: Where, absolute: string, shown: string): string {
    let bytes: Buffer;
    try {
      bytes = readFileSync(absolute);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? (err as Error).message})`;
      throw refuse(where, `${shown} ${why}`, { cause: err });
    }
    this.files.push({ shown, bytes });
    const text = bytes.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /** sha256 over every file read, in the order read (the config first): names and bytes both count. */
  sha256(): string {
    const h = createHash('sha256');
    for (const [i, f] of this.files.entries()) {
      // The config alone hashes as its bytes do, like any suite file; each referenced file adds its name and bytes.
      if (i === 0) h.update(f.bytes);
      else h.update(`\u0000${f.shown}\u0000${f.bytes.length}\u0000`).update(f.bytes);
    }
    return h.digest('hex');
  }
}

/** A path as messages show it: relative to `cwd` with forward slashes, or absolute on another drive. */
export function shownPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  return (rel === '' || isAbsolute(rel) ? absolute : rel).split('\\').join('/');
}
