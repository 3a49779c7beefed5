/** An HTTP failure a handler raises on purpose: the status and a message safe to show (and fields the page may use beside it). */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The viewer's static assets are missing from the package: a broken install, named. */
export class ViewerAssetsMissingError extends Error {
  override name = 'ViewerAssetsMissingError';
  constructor(dir: string, options?: { cause?: unknown }) {
    super(`the viewer's assets are missing (expected ${dir}); reinstall evalog`, options);
  }
}
