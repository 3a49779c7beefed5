// A suite's command-line adjunct: its own `evalog run` flags and its endpoint variables. These are
// the CLI's concerns, not the suite's, so they live beside the suite and the app registers both.

/** A flag of `evalog run`, as node's parseArgs takes it. */
export interface RunFlagOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

/** A suite's own flags of `evalog run` and how they become config. */
export interface RunFlags {
  /** parseArgs options; a suite that defines `model` takes over --model (e.g. repeatable, for arms). */
  options: Readonly<Record<string, RunFlagOption>>;
  /** Help lines for the flags. */
  help: string;
  /**
   * Turns the parsed flags into config overrides (paths resolved against `cwd`; input files read and
   * validated here, before anything is written) and the model id the endpoint needs, if a flag gave one.
   */
  apply(values: Readonly<Record<string, unknown>>, cwd: string): AppliedRunFlags;
}

/** What a suite's flags gave: config overrides, the endpoint's model id, and lines to print as the run starts. */
export interface AppliedRunFlags {
  overrides: Record<string, unknown>;
  model: string | undefined;
  /** Said on stderr at the run's start (after `evalog: `), e.g. that the protocol read is not the published one. */
  notices?: string[];
}

/** Endpoint variables of a suite, tried before EVALOG_BASE_URL / EVALOG_MODEL / EVALOG_API_KEY. */
export interface EndpointEnv {
  baseUrl: string;
  model: string;
  apiKey: string;
}

/** What the CLI knows of a suite besides the suite itself; every member optional. */
export interface SuiteCli {
  /** The suite's own `evalog run` flags; absent = none. */
  runFlags?: RunFlags;
  /** Suite-specific endpoint variables. */
  endpointEnv?: EndpointEnv;
  /**
   * Set when the suite fixes sampling and the call policy itself (why, in a few words): the flags
   * that set them (`--temperature`, `--timeout`, …) are refused by name rather than ignored.
   */
  fixedSampling?: string;
}
