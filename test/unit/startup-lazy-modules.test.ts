// Start-up (issue 20): modules only some commands use must not be loaded by the others. The CLI
// runs as a child with an ESM load hook that records every URL it loads; `run --help` imports the
// run command's whole module graph (registry, suites, sandbox) without running anything.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOOK = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.EVALOG_TEST_LOADLOG, url + '\\\\n'); return next(url, context); }\`));
`;

function loadedBy(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'evalog-startup-'));
  try {
    const hook = join(dir, 'hook.mjs');
    const log = join(dir, 'loaded.txt');
    writeFileSync(hook, HOOK);
    writeFileSync(log, '');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(hook).href, 'test/support/evalog-entry.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, EVALOG_TEST_LOADLOG: log },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('start-up: lazily loaded modules', () => {
  it('run --help loads the run command but not acorn (only the sandbox static check needs it)', () => {
    const urls = loadedBy(['run', '--help']);
    assert.ok(
      urls.some((u) => u.includes('/src/cli/run.')),
      'the hook saw the run command load',
    );
    assert.ok(
      urls.some((u) => u.includes('/src/sandbox/')),
      'the sandbox modules are in the graph',
    );
    assert.deepEqual(
      urls.filter((u) => u.includes('/node_modules/acorn/')),
      [],
    );
  });

  it("resume --help reads the suites' CLI adjuncts but loads none of their own commands, nor the kit lent to them", () => {
    const urls = loadedBy(['resume', '--help']);
    assert.ok(
      urls.some((u) => /\/src\/suites\/[^/]+\/cli\/index\./.test(u)),
      'the adjuncts (bindings) are read',
    );
    assert.deepEqual(
      urls.filter((u) => /\/src\/suites\/[^/]+\/cli\/(?!index\.|inputs\.)/.test(u) || u.includes('/src/cli/kit.')),
      [],
    );
  });

  it("a suite's own command loads its module and the kit when it runs", () => {
    const urls = loadedBy(['memory-eviction', '--help']);
    assert.ok(urls.some((u) => u.includes('/src/suites/memory-eviction/cli/command.')));
    assert.ok(urls.some((u) => u.includes('/src/cli/kit.')));
  });
});
