// The parts of a command (its IO, exit codes, the input error) and strict flag parsing live with
// the suite contract (a suite's own commands are built of them too); the CLI's commands take them from here.
export { EXIT, InputError, type CliIO, type Command } from '../harness/suite/command.js';
export { intFlag, parseCommandArgs } from '../harness/suite/args.js';
