// Where a suite's summary keeps its figures by arm, said by the suite (`ReportSpec.summaryLayout`),
// so a generic reader (the viewer's per-arm table) lays any suite's summary out without knowing its
// keys. Data only: the summary itself is the suite's and is never changed by it.

/** One place in the summary that holds figures by arm. */
export interface SummaryGroup {
  /** The summary's key holding `{ [arm]: figures }`; null: the summary's own top-level objects are the arms (its scalars are the header). */
  key: string | null;
  /** 2 where each arm's figures are split once more (`{ [arm]: { [part]: figures } }`), each part shown as `arm / part`; default 1. */
  depth?: 1 | 2;
  /** Added to each arm's name (`arm / <suffix>`), for a second group over the same arms (a roll-up, say). */
  suffix?: string;
}

/** How a summary's figures are laid out by arm: its groups, in the order they are shown. */
export interface SummaryLayout {
  groups: readonly SummaryGroup[];
}

/** The generic summary's layout (`arms`), the default of a suite that says none. */
export const GENERIC_SUMMARY_LAYOUT: SummaryLayout = { groups: [{ key: 'arms' }] };

/** A summary that is a map of arm to figures, beside run-level scalars. */
export const ARM_MAP_SUMMARY_LAYOUT: SummaryLayout = { groups: [{ key: null }] };
