// What the scripted agent sees and how it behaves: apart from the player so its policies need not import it.

/** A tool call the agent made and the result it got, in conversation order. */
export interface Step {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

/** What the agent can see: its steps, the host's notices (with how many steps came before each). */
export interface Timeline {
  steps: Step[];
  notices: { after: number; text: string }[];
}

/**
 * How the scripted agent behaves, each habit taken from an instruction its system prompt actually
 * carries (not from the preset's name): re-read a source the host says changed, read long material
 * to the end, rerun failed or cut queries, check state after a context switch or restart.
 */
export interface Policy {
  rereadChanged: boolean;
  readToEnd: boolean;
  rerunQueries: boolean;
  checkStateAfterReset: boolean;
}
