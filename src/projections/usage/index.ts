// Usage accounting: call records, the additive report, and the run projection behind usage.json.
export { aggregateUsage, totalsOf, USAGE_FIELDS } from './report.js';
export type { CallRecord, FieldTotal, UsageField, UsageReport, UsageTotals } from './report.js';
export { usageProjection, usageFields, cmp } from './calls.js';
export type { CallRow, UsageFile } from './calls.js';
