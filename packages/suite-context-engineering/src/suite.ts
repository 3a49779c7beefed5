import { ConfigError, defineSuite, hashOf } from 'evalog';
import type { CaseSpec, SuiteCli, SuiteDefinition } from 'evalog';
import { CELLS_MANIFEST, cellOf, ContextEngineeringConfig, defaultConfig, settingsOf, type ContextEngineeringConfig as Config } from './config.js';
import { evolveEnvironment, initialEnvironment, type CeEnvironment } from './environment.js';
import { injectionsDue } from './injections.js';
import { agentMessages, checkPromptRevision } from './prompts.js';
import { contextEngineeringReport } from './report.js';
import { describeCellChanges } from './resume.js';
import { loadScenarios, SCENARIOS_DIR, type Scenario } from './scenarios.js';
import { scoreScenario } from './scoring.js';
import { runTool, toolsFor } from './tools.js';

/** The cases (read once per run; the files are hashed into provenance when it starts), after checking that every cell names the fixture and prompts on disk (a cell never drifts). */
function cases(config: Config): CaseSpec<Scenario>[] {
  const all = loadScenarios().map((s): CaseSpec<Scenario> => ({ id: s.id, data: s }));
  for (const [name, cell] of Object.entries(config.cells).sort(([a], [b]) => (a < b ? -1 : 1))) {
    checkPromptRevision(name, cell);
    for (const c of all) {
      for (const key of ['revision', 'variant'] as const) {
        if (cell.fixture[key] !== c.data.fixture[key]) {
          throw new ConfigError(
            `config: field cells.${name}.fixture.${key}: ${JSON.stringify(cell.fixture[key])} is not the fixture ${key} ${JSON.stringify(c.data.fixture[key])} of scenario ${c.id} (${SCENARIOS_DIR.pathname})`,
          );
        }
      }
    }
  }
  return all;
}

/** The suite's definition (its hooks, typed), for tests of the hooks themselves. */
export const contextEngineeringDefinition = {
  name: 'context-engineering',
  description: 'Frozen cells on four scenarios (stale evidence, key negation, query failure, recovery), scored on final environment state and cited evidence',
  shape: 'session',
  // Cells, prompts and scenarios: a resume refuses the run once one of them changed.
  manifests: { folder: new URL('./', CELLS_MANIFEST) },
  configSchema: ContextEngineeringConfig,
  get defaults() {
    return defaultConfig();
  },
  prepare: async (config) => ({ cases: cases(config) }),
  arms: (config) => Object.keys(config.cells).sort(),
  session: {
    settings: (config, arm) => settingsOf(cellOf(config, arm)),
    request: (c, arm, config) => {
      const cell = cellOf(config, arm);
      return { messages: agentMessages(c.data, cell), tools: toolsFor(c.data, cell.switches.queries) };
    },
    initialEnvironment: (c) => initialEnvironment(c.data),
    evolveEnvironment: (env, e) => evolveEnvironment(env, e),
    runTool: (name, args, ctx) => runTool(ctx.case.data, name, args, ctx.environment, ctx.queries),
    injectionsDue: (c, env, fired, at) => injectionsDue(c.data, env, fired, at),
  },
  // Blind to the cell: the grader sees the scenario and the final environment only.
  grade: (c, work) => scoreScenario(c.data, (work.environment as CeEnvironment | undefined) ?? initialEnvironment(c.data)),
  jobMeta: (c, arm, config) => {
    const cell = cellOf(config, arm);
    return {
      scenario: c.data.scenario,
      recovery: c.data.recovery,
      fixture_revision: c.data.fixture.revision,
      fixture_variant: c.data.fixture.variant,
      fixture_sha256: hashOf(c.data),
      cell_revision: cell.revision,
      preset: cell.agent.preset,
      prompt_revision: cell.agent.promptRevision,
    };
  },
  describeConfigChange: describeCellChanges,
  report: contextEngineeringReport,
} satisfies SuiteDefinition<Config, Scenario, CeEnvironment>;

/** The context-engineering suite: frozen cells × four scenarios scored on final state and evidence. */
export const contextEngineeringSuite = defineSuite(contextEngineeringDefinition);

/** Its command-line adjunct: the endpoint variables it reads first. */
export const contextEngineeringCli: SuiteCli = {
  endpointEnv: { baseUrl: 'CONTEXT_ENGINEERING_BASE_URL', model: 'CONTEXT_ENGINEERING_MODEL', apiKey: 'CONTEXT_ENGINEERING_API_KEY' },
  fixedSampling: 'its frozen cells (packages/suite-context-engineering/manifests/cells.v1.json) fix sampling, timeouts and retries',
};
