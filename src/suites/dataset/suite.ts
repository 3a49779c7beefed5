import { defineSuite, type DefinedSuite, type GradeOutput, type SuiteCli, type SuiteDefinition } from '../../harness/suite/index.js';
import { armTable, DATASET_DEFAULTS, DatasetConfig } from './config.js';
import { datasetCases, datasetRequest, judgeSample, type DatasetCase } from './cases.js';
import { DatasetSuiteError } from './errors.js';
import { datasetRunFlags } from './flags.js';
import { grade } from './graders.js';

/** Options of a dataset suite instance. */
export interface DatasetSuiteOptions {
  /** Folder that relative case-file paths in a config are resolved against (default: the process's cwd). */
  baseDir?: string;
}

/**
 * The generic dataset suite: one call per case × arm × repetition, graded at once (exact, contains,
 * regex, json-field, deterministic-overlap-v1, or a model judge whose calls are recorded provider
 * calls), the grade recorded as events. The config pins the case file (and the rubric) by path and
 * sha256, so replay, resume and workers rebuild the same cases from it.
 */
export function datasetSuite(options: DatasetSuiteOptions = {}): DefinedSuite {
  return defineSuite(datasetDefinition(options));
}

/** The dataset suite's definition (its hooks, typed), for tests of the hooks themselves. */
export function datasetDefinition(options: DatasetSuiteOptions = {}): SuiteDefinition<DatasetConfig, DatasetCase, never> {
  const baseDir = () => options.baseDir ?? process.cwd();
  return {
    name: 'dataset',
    description: 'Cases from a JSONL file, one model call each, graded by exact / contains / regex / json-field / overlap / a model judge',
    shape: 'single-call',
    configSchema: DatasetConfig,
    defaults: DATASET_DEFAULTS,
    // The case file is read here, once per run, and checked against the sha256 the config pins.
    prepare: async (config) => ({ cases: datasetCases(config, baseDir()) }),
    arms: (config) => [...armTable(config).keys()],
    // The case's expected value as a plan fact: the rows show it beside the output (`expected`).
    jobMeta: (c) => (c.data.expected === undefined ? {} : { expected: c.data.expected }),
    call: {
      request(c, job, config) {
        const arm = armTable(config).get(job.arm);
        if (!arm) throw new DatasetSuiteError(`dataset: arm ${job.arm} is not in the config (arms: ${[...armTable(config).keys()].join(', ')})`);
        return { ...datasetRequest(c.data, arm, config), tools: [] };
      },
    },
    async grade(c, work, judge): Promise<GradeOutput> {
      const output = work.answer ?? '';
      const { judge: grader } = c.data;
      if (grader === null) {
        const v = grade(c.data.grader, output, c.data.expected);
        return { checks: [{ checkId: c.data.grader.kind, visibility: 'hidden', passed: v.passed, detail: v.detail }], firstRevisionPassed: null };
      }
      // A malformed verdict or a failed judge call is a failed check whose detail says "grading error": never a pass.
      const v = await grader.grade(judge, judgeSample(c.data, output));
      return { checks: [{ checkId: grader.name, visibility: 'hidden', passed: v.passed, detail: v.detail }], firstRevisionPassed: null };
    },
  };
}

/** Its command-line adjunct: the flags of `evalog run dataset`. */
export const datasetCli: SuiteCli = { runFlags: datasetRunFlags };
