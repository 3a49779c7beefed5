// The published context-snapshot protocol as evalog reads it from the user's copy of the upstream
// `context_snapshot/` folder (cases.py, prompts.py, config.json). evalog holds none of that text:
// these are the shapes it is read into.

/** One upstream case, as the loader prints it (field names as upstream's `Case` has them). */
export interface ProtocolCase {
  name: string;
  category: string;
  kind: 'json' | 'python';
  brief: string;
  /** The parent's history; `tool` entries are tool results the parent saw. */
  history: { role: 'user' | 'assistant' | 'tool'; content: string }[];
  /** JSON tasks: the expected object (one hidden check per key). Null for Python tasks. */
  expected: Record<string, unknown> | null;
  /** A summary of earlier context ('' when none). */
  summary: string;
  /** Bundled documents, by name. */
  references: Record<string, string>;
  /** Python tasks: the function the artifact defines. */
  function: string | null;
  /** Python tasks: the hidden checks, in order (public mode runs the first); each has exactly one of want and raises. */
  checks: { args: unknown[]; want?: unknown; raises?: string }[];
}

/** The three prompt constants of prompts.py. */
export interface ProtocolPrompts {
  workerSystem: string;
  leadSystem: string;
  /** By arm name: exactly isolated_handoff and snapshot (PROTOCOL_ARMS). */
  dispatchPolicies: Record<string, string>;
}

/** config.json, validated with upstream's rules (exact key set; max_retries 0). */
export interface ProtocolConfig {
  protocol: string;
  temperature: number;
  reasoning_effort: string | null;
  max_tokens: number;
  context_window: number;
  http_timeout_seconds: number;
  worker_timeout_seconds: number;
  max_graph_steps: number;
  max_retries: 0;
  seed: number;
  order_seed: number;
  concurrency: number;
}

/** One protocol file: the sha256 of the bytes read, and `pinned`, the hash the pin table gives it (equal when pinned). */
export interface ProtocolFileHash {
  file: 'cases.py' | 'prompts.py' | 'config.json';
  sha256: string;
  pinned: string;
}

/** A loaded protocol folder. `pinned` false = read with --allow-unpinned and some hash differs. */
export interface ContextSnapshotProtocol {
  /** The protocol id (config.json's `protocol`). */
  id: string;
  /** Absolute path of the folder read. */
  source: string;
  pinned: boolean;
  files: ProtocolFileHash[];
  cases: ProtocolCase[];
  prompts: ProtocolPrompts;
  config: ProtocolConfig;
}
