// The published deer-flow results live beside the checkout, in ../shared/fixtures/published/, and
// are never copied in (their README says so). A fresh clone has no ../shared, so a test that reads
// them skips there, its title naming the missing folder; the rest of its file runs. CI always has
// the folder (.ci/run sets EVALOG_REQUIRE_PUBLISHED=1), and there an absent folder fails the test
// instead, so a wrong path can never turn checks into silent skips.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The published fixtures' root: `../shared/fixtures/published` beside the project root. */
export const PUBLISHED_ROOT = fileURLToPath(new URL('../../../shared/fixtures/published/', import.meta.url));

/** A published folder is missing where EVALOG_REQUIRE_PUBLISHED=1 says it must be present. */
export class PublishedFixtureMissingError extends Error {
  constructor(readonly shown: string) {
    super(`${shown} is absent, and EVALOG_REQUIRE_PUBLISHED=1 requires it (clone the shared fixtures beside the project, or unset the variable to skip)`);
    this.name = 'PublishedFixtureMissingError';
  }
}

/** A mocha test body, as `it` takes it. */
type TestBody = Mocha.Func | Mocha.AsyncFunc;

/** One published folder and the `it`/`describe` that need it. */
export interface PublishedFolder {
  /** The folder as a reader sees it: `../shared/fixtures/published/<name>`. */
  readonly shown: string;
  /** Its absolute path. */
  readonly dir: string;
  /** Whether it is there. */
  readonly present: boolean;
  /** The absolute path of a file in it. */
  path(file: string): string;
  /** A file's text (UTF-8); call it only inside `it`/`describe` below, which never run it when the folder is absent. */
  read(file: string): string;
  /** `it` for a test that reads the folder: skipped with the reason in its title when absent, failed when required. */
  it(title: string, fn: TestBody): void;
  /** `describe` whose body and tests read the folder: its body is not even run when the folder is absent. */
  describe(title: string, fn: (this: Mocha.Suite) => void): void;
}

/** Whether this run must have the published fixtures (CI sets it; a fresh clone does not). */
export const publishedRequired = (): boolean => process.env.EVALOG_REQUIRE_PUBLISHED === '1';

/** The skip reason put in a title, one line naming the folder. */
export const skipReason = (shown: string): string => `[skipped: ${shown} is absent]`;

/** The published folder `name` (e.g. `context-snapshot-2026-09-12`). */
export function publishedFolder(name: string): PublishedFolder {
  const dir = join(PUBLISHED_ROOT, name);
  const shown = `../shared/fixtures/published/${name}`;
  const present = existsSync(dir);
  const missing = () => {
    throw new PublishedFixtureMissingError(shown);
  };
  return {
    shown,
    dir,
    present,
    path: (file) => join(dir, file),
    read: (file) => readFileSync(join(dir, file), 'utf8'),
    it(title, fn) {
      if (present) it(title, fn);
      else if (publishedRequired()) it(title, missing);
      else it.skip(`${title} ${skipReason(shown)}`);
    },
    describe(title, fn) {
      // Without the folder the body is not run: bodies read the files while mocha collects tests.
      if (present) describe(title, fn);
      else if (publishedRequired()) describe(title, () => it(`reads ${shown}`, missing));
      else describe(title, () => it.skip(`all its tests ${skipReason(shown)}`));
    },
  };
}

/** The memory-eviction benchmark's published run (deer-flow PR 4789, reproduction v1). */
export const DEERMEM_PR4789 = 'deermem-eviction-pr4789-v1';
/** The context-snapshot benchmark's published results. */
export const CONTEXT_SNAPSHOT_2026_09_12 = 'context-snapshot-2026-09-12';
