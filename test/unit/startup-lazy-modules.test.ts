// Start-up (issue 20): modules only some commands use must not be loaded by the others. The CLI
// runs as a child with an ESM load hook that records every URL it loads; `run --help` imports the
// run command's whole module graph (registry, suites, every plugin for their flags' help, sandbox)
// without running anything. A plugin (packages/suite-*) is loaded only by a command that needs it.
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

function loadedBy(args: string[], status = 0): string[] {
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
    assert.equal(r.status, status, r.stderr);
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
      urls.some((u) => /\/packages\/suite-[^/]+\/src\/cli\/index\./.test(u)),
      'the adjuncts (bindings) are read',
    );
    assert.deepEqual(
      urls.filter((u) => /\/packages\/suite-[^/]+\/src\/cli\/(?!index\.|inputs\.)/.test(u) || u.includes('/src/cli/kit.')),
      [],
    );
  });

  it("a suite's own command loads its module and the kit when it runs", () => {
    const urls = loadedBy(['memory-eviction', '--help']);
    assert.ok(urls.some((u) => u.includes('/packages/suite-memory-eviction/src/cli/command.')));
    assert.ok(urls.some((u) => u.includes('/src/cli/kit.')));
  });

  // The plugins whose modules a command loaded, by package folder.
  const plugins = (urls: string[]) => [...new Set(urls.flatMap((u) => /\/packages\/(suite-[^/]+)\//.exec(u)?.[1] ?? []))].sort();

  it("--help and --version load no plugin (the suites' commands are listed from plugins.ts)", () => {
    assert.deepEqual(plugins(loadedBy(['--help'])), []);
    const version = loadedBy(['--version']);
    assert.deepEqual(plugins(version), []);
    assert.deepEqual(
      version.filter((u) => u.includes('/src/app/')),
      [],
    );
  });

  it('a run of a built-in suite (dataset) loads no plugin, though its module graph holds the registry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalog-startup-run-'));
    try {
      const urls = loadedBy(['run', 'dataset', '--data', 'examples/qa.jsonl', '--out', join(dir, 'ds'), '--quiet']);
      assert.ok(
        urls.some((u) => u.includes('/src/app/registry.')),
        'the registry was loaded',
      );
      assert.ok(
        urls.some((u) => u.includes('/src/cli/finish-run.')),
        'the run reached its end',
      );
      assert.deepEqual(plugins(urls), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a run of a plugin's suite loads that plugin alone (refused here after the suite was resolved: --repetitions 0)", () => {
    assert.deepEqual(plugins(loadedBy(['run', 'context-engineering', '--repetitions', '0'], 2)), ['suite-context-engineering']);
  });

  it("another suite's run flag loads every plugin, so the refusal names the suite it belongs to", () => {
    assert.deepEqual(plugins(loadedBy(['run', 'smoke', '--protocol-dir', 'x'], 2)), [
      'suite-context-engineering',
      'suite-context-snapshot',
      'suite-memory-eviction',
    ]);
  });
});
