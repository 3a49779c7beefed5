// Usage accounting: call records, the report (normalise, de-duplicate, aggregate), and the run projection behind usage.json.
export {
  aggregateUsage,
  dedupeRecords,
  normalizeRecord,
  isValidUsage,
  totalsOf,
  InvalidCallRecordError,
  ATTRIBUTIONS,
  OUTCOMES,
  USAGE_FIELDS,
} from './report.js';
export type {
  BillingSummary,
  CallAttribution,
  CallOutcome,
  CallRecord,
  CallUsage,
  FieldTotal,
  UsageField,
  UsageReport,
  UsageTotals,
} from './report.js';
export { usageProjection, usageFields, callUsage, callRecords, evolveCall, sortedRows, usageTotalsOf, cmp, CACHED, GRADING } from './calls.js';
export type { CallFoldState, CallRow, UsageFile, UsageState } from './calls.js';
