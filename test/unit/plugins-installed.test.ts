// plugins.ts lists, for each installed plugin, what it provides (suite names, command names and
// summaries), so that the registry can tell which plugin to load without loading any. The lists
// must say what each plugin exports: a suite or command listed but not provided (or provided but
// not listed) would be unknown to `evalog run` or `evalog --help`, or load the wrong plugin.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { INSTALLED_PLUGINS } from '../../src/app/plugins.js';
import { allSuiteNames, ensureSuite, loadAllPlugins, pluginVersions, pluginOfSuite, PluginUnavailableError, suiteNamed } from '../../src/app/registry.js';
import { collectProvenance } from '../../src/harness/orchestration/provenance.js';
import { UserError } from '../../src/core/errors.js';

describe('installed plugins: what plugins.ts lists is what each plugin provides', () => {
  for (const listed of INSTALLED_PLUGINS) {
    describe(listed.package, () => {
      it('loads a plugin named as its package, with the suites listed, in that order', async () => {
        const plugin = await listed.load();
        expect(plugin.name).to.equal(listed.package);
        expect(plugin.suites.map((s) => s.name)).to.deep.equal([...listed.suites]);
      });

      it('provides the commands listed (names and summaries) over its CLI adjuncts, and no other', async () => {
        const plugin = await listed.load();
        const provided = Object.values(plugin.cli ?? {})
          .flatMap((cli) => cli.commands ?? [])
          .map((c) => ({ name: c.name, summary: c.summary }));
        expect(provided).to.deep.equal(listed.commands.map((c) => ({ name: c.name, summary: c.summary })));
      });

      it('has a CLI adjunct for none but its own suites', async () => {
        const plugin = await listed.load();
        for (const name of Object.keys(plugin.cli ?? {})) expect(listed.suites, `cli.${name}`).to.include(name);
      });
    });
  }

  it('names every suite once across evalog and its plugins', () => {
    const names = allSuiteNames();
    expect(new Set(names).size).to.equal(names.length);
    for (const p of INSTALLED_PLUGINS) for (const s of p.suites) expect(pluginOfSuite(s)?.package).to.equal(p.package);
  });

  it('ensureSuite loads the plugin of that suite; then the registry finds it and its suites carry their manifests', async () => {
    await ensureSuite('context-engineering');
    expect(suiteNamed('context-engineering')?.name).to.equal('context-engineering');
    expect(pluginVersions().map((p) => p.name)).to.include('@evalog/suite-context-engineering');
    await loadAllPlugins();
    expect(pluginVersions().map((p) => p.name)).to.deep.equal(INSTALLED_PLUGINS.map((p) => p.package));
    for (const name of allSuiteNames()) expect(suiteNamed(name)?.name, name).to.equal(name);
    // Every suite of a plugin hashes its manifests under the plugin's main suite's name: the key the
    // studies' manifests had before they moved into their packages, which resume and compare look for.
    for (const p of INSTALLED_PLUGINS) for (const s of p.suites) expect(suiteNamed(s)?.manifests?.key, s).to.equal(p.suites[0]);
  });

  it("provenance hashes evalog's own manifests and the run's suite's own under its key, and records the plugins' versions", async () => {
    await loadAllPlugins();
    const own = collectProvenance();
    expect(own.plugins).to.equal(undefined);
    expect(Object.keys(own.manifests)).to.include('smoke/cases.v1.json');
    expect(Object.keys(own.manifests).filter((k) => k.startsWith('context-engineering/'))).to.deep.equal([]);
    for (const [suite, file] of [
      ['context-engineering', 'context-engineering/cells.v1.json'],
      ['context-snapshot', 'context-snapshot/config.v1.json'],
      ['memory-eviction-policy', 'memory-eviction/config.v1.json'],
    ] as const) {
      const keys = Object.keys(collectProvenance(suiteNamed(suite)!.manifests).manifests);
      expect(keys, suite).to.include.members(['smoke/cases.v1.json', file]);
      expect(keys, suite).to.deep.equal([...keys].sort());
    }
    const withPlugins = collectProvenance(undefined, pluginVersions());
    // Each at its package's own version.
    const version = (pkg: string) =>
      (JSON.parse(readFileSync(new URL(`../../packages/${pkg.replace('@evalog/', '')}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
    expect(withPlugins.plugins).to.deep.equal(Object.fromEntries(INSTALLED_PLUGINS.map((p) => [p.package, version(p.package)])));
  });

  it('a plugin that cannot be loaded is a one-line UserError naming the suite and the plugin', () => {
    const err = new PluginUnavailableError('@acme/suite-x', 'x', new Error("Cannot find package '@acme/suite-x'\n    at resolve (node:internal)"));
    expect(err).to.be.instanceOf(UserError);
    expect(err.message).to.equal(`suite "x" comes from the plugin @acme/suite-x, which cannot be loaded: Cannot find package '@acme/suite-x'`);
  });
});
