// The bottom layer: pure helpers every other layer may use, importing nothing of evalog.
export { canonicalJson, hashOf, sha256 } from './canonical.js';
export { isoOf, steppingClock, systemClock, type Clock } from './clock.js';
export { UserError } from './errors.js';
export { assertNever } from './never.js';
export { merged } from './objects.js';
export { own } from './strings.js';
export { deriveSeed, mulberry32 } from './prng.js';
export { arrayItemLines, lineColumnOf, locateJsonError, parseJsonText, stripBom, type JsonErrorAt } from './text-input.js';
export { CsvSyntaxError, csvField, csvRecord, parseCsv, type CsvRecord } from './csv.js';
