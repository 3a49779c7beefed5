// Strict flag parsing lives with the suite contract (a suite's own commands parse their flags the
// same way); the CLI's commands take it from here.
export { intFlag, parseCommandArgs } from '../harness/suite/args.js';
