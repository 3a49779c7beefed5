import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

// docs/architecture.md, "One run's path", lists the files a reader opens to follow
// `evalog run dataset` from the command line to rows.jsonl (issue 37: at most 25). This keeps the
// list true as the code moves: every file exists, and each one is reached by an import (static or
// lazy, through a folder's index.ts) from a file listed before it, so the list is a path through
// the code, not a wish.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_FILES = 25;

/** The numbered list's files, in order: each item starts with the file in backticks. */
function listedPath(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf("## One run's path");
  expect(start, 'docs/architecture.md has a section "One run\'s path"').to.be.greaterThan(-1);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1) === -1 ? undefined : doc.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\s*\d+\.\s+`([^`]+\.ts)`/gm)].map((m) => m[1]!);
}

const SPECIFIER = /(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g;

/** The repository files a source file imports (relative specifiers; `.js` names its `.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
}

/** What importing a file makes reachable: the file, and what an index.ts re-exports, through nested indexes. */
function reachedThrough(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !existsSync(join(ROOT, file))) return seen;
  seen.add(file);
  if (file.endsWith('/index.ts')) for (const next of importsOf(file)) reachedThrough(next, seen);
  return seen;
}

describe("one run's path (docs/architecture.md)", () => {
  const path = listedPath();

  it(`lists at most ${MAX_FILES} files, each of them once and each in the repository`, () => {
    expect(path.length).to.be.within(10, MAX_FILES);
    expect(new Set(path).size, 'no file twice').to.equal(path.length);
    for (const file of path) expect(existsSync(join(ROOT, file)), file).to.equal(true);
    expect(path[0]).to.equal('src/cli/launch.ts');
  });

  it('is connected: every file is imported by a file listed before it', () => {
    for (let i = 1; i < path.length; i++) {
      const reached = new Set<string>();
      for (const earlier of path.slice(0, i)) for (const imported of importsOf(earlier)) reachedThrough(imported, reached);
      expect(reached.has(path[i]!), `${path[i]} (item ${i + 1}) is imported by none of the files before it`).to.equal(true);
    }
  });

  it('ends where rows.jsonl is written', () => {
    const writers = path.filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('rows.jsonl'));
    expect(writers, 'a listed file names rows.jsonl').to.not.be.empty;
  });
});
