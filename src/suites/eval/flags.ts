// `evalog run ./suite.ts` flags of a defineEval suite: `--model` repeated makes models the arms, as
// the dataset suite's does (the endpoint gets the first).
import type { RunFlags } from '../../harness/suite/index.js';

/** The run flags of every defineEval suite. */
export const evalRunFlags: RunFlags = {
  options: { model: { type: 'string', multiple: true } },
  help: `A defineEval suite:
  --model ID            model id; repeat to compare models (one arm each, × the suite's templates); replaces the suite's models`,
  apply(values) {
    const models = values.model as string[] | undefined;
    return models ? { overrides: { models }, model: models[0] } : { overrides: {}, model: undefined };
  },
};
