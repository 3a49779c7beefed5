// The suite API's part of the canonical row core and the summary layout: what a suite's report
// declares so that the generic viewer, comparison and tools read its rows and summary without
// knowing its shapes. They live with the report they belong to (projections/, below the harness,
// which its projections cannot import); a suite author finds them here, beside defineSuite.
export {
  ARM_MAP_SUMMARY_LAYOUT,
  GENERIC_SUMMARY_LAYOUT,
  NoRowCoresError,
  RowCoreError,
  type CoreOf,
  type JobCore,
  type RowCore,
  type SummaryGroup,
  type SummaryLayout,
} from '../../projections/index.js';
