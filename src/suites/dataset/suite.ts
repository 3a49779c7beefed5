import type { z } from 'zod';
import type { GradeOutput, Suite } from '../../harness/suite/types.js';
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
export function datasetSuite(options: DatasetSuiteOptions = {}): Suite<DatasetConfig, DatasetCase> {
  const baseDir = () => options.baseDir ?? process.cwd();
  return {
    name: 'dataset',
    description: 'Cases from a JSONL file, one model call each, graded by exact / contains / regex / json-field / overlap / a model judge',
    configSchema: DatasetConfig as unknown as z.ZodType<DatasetConfig>,
    defaults: DATASET_DEFAULTS,
    cases: (config) => datasetCases(config, baseDir()),
    arms: (config) => [...armTable(config).keys()],
    jobShape: 'single-call',
    singleCallRequest(c, job, config) {
      const arm = armTable(config).get(job.arm);
      if (!arm) throw new DatasetSuiteError(`dataset: arm ${job.arm} is not in the config (arms: ${[...armTable(config).keys()].join(', ')})`);
      return { ...datasetRequest(c.data, arm, config), tools: [] };
    },
    async grade(c, work, judge): Promise<GradeOutput> {
      const output = work.answer ?? '';
      const { judge: grader } = c.data;
      if (grader === null) {
        const v = grade(c.data.grader, output, c.data.expected);
        return { checks: [{ checkId: c.data.grader.kind, visibility: 'hidden', passed: v.passed, detail: v.detail }], firstRevisionPassed: null };
      }
      if (!judge) throw new DatasetSuiteError(`dataset: case ${c.id} is model-graded but the harness gave no judge port`);
      // A malformed verdict or a failed judge call is a failed check whose detail says "grading error": never a pass.
      const v = await grader.grade(judge, judgeSample(c.data, output));
      return { checks: [{ checkId: grader.name, visibility: 'hidden', passed: v.passed, detail: v.detail }], firstRevisionPassed: null };
    },
    runFlags: datasetRunFlags,
  };
}
