// The short form of a suite: a data file, a prompt, two scorers. Everything else is evalog's default.
// Offline, evalog's built-in scripted model answers (its dataset player knows these questions):
//   npx evalog run examples/suite-short/suite.ts --out runs/short
//   npx evalog replay runs/short
import { contains, defineEval, similar } from 'evalog';

export default defineEval({
  name: 'short-form',
  data: 'cases.jsonl', // relative to this file: {"input": "...", "expected": "..."} per line
  task: 'Answer briefly. {{input}}',
  scorers: [contains(), similar({ threshold: 0.8 })],
});
