/** Options given to the scripted model that cannot work (bad fault rule, bad latency range). */
export class ScriptedConfigError extends Error {
  override name = 'ScriptedConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A chat request body the scripted model refuses; it becomes a 400 with an OpenAI-style error. */
export class InvalidChatRequestError extends Error {
  override name = 'InvalidChatRequestError';
  /** The request field at fault (dotted path), as OpenAI reports it in `error.param`. */
  readonly param: string | null;
  constructor(message: string, param: string | null = null, options?: { cause?: unknown }) {
    super(message, options);
    this.param = param;
  }
}

/** A player threw instead of returning a reply or null: a bug in the player, answered with a 500. */
export class PlayerFailedError extends Error {
  override name = 'PlayerFailedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
