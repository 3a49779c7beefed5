import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CACHE_DIR, takeCacheFlags } from '../../src/cli/cache-flags.js';
import { InputError } from '../../src/cli/io.js';

describe('cache flags: --cache, --cache DIR, --cache=DIR, --no-cache', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'evalog-cache-flags-'));
  after(() => rmSync(cwd, { recursive: true, force: true }));
  const take = (args: string[], env: Record<string, string> = {}) => takeCacheFlags('run', args, { env, cwd });

  it('--cache DIR takes the next word as the folder, as --cache=DIR does', () => {
    const spaced = take(['smoke', '--cache', 'my-cache', '--seed', '3']);
    const joined = take(['smoke', '--cache=my-cache', '--seed', '3']);
    expect(spaced.args).to.deep.equal(['smoke', '--seed', '3']);
    expect(spaced.cache).to.deep.equal({ dir: join(cwd, 'my-cache'), recorded: 'my-cache' });
    expect(joined).to.deep.equal(spaced);
  });

  it('--cache alone, last or before another flag, is the default folder', () => {
    for (const args of [
      ['smoke', '--cache'],
      ['smoke', '--cache', '--out', 'runs/a'],
    ]) {
      const { cache, args: rest } = take(args);
      expect(cache?.recorded).to.equal(DEFAULT_CACHE_DIR);
      expect(rest).to.not.include('--cache');
    }
  });

  it('--no-cache wins over the variable; the variable alone turns it on', () => {
    expect(take(['smoke', '--no-cache'], { EVALOG_CACHE_DIR: 'x' }).cache).to.equal(null);
    expect(take(['smoke'], { EVALOG_CACHE_DIR: 'x' }).cache?.recorded).to.equal('x');
    expect(take(['smoke']).cache).to.equal(undefined);
  });

  it('a file where the folder should be is refused naming the flag', () => {
    writeFileSync(join(cwd, 'a-file'), 'x');
    expect(() => take(['smoke', '--cache', 'a-file'])).to.throw(InputError, '--cache: a-file is not a folder');
    expect(() => take(['smoke', '--cache='])).to.throw(InputError, '--cache=DIR needs a folder name');
  });
});
