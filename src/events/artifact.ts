import { z } from 'zod';
import { eventSchema } from './envelope.js';

/** The worker saved a new revision of its artifact. */
export const ArtifactRevised = eventSchema(
  'ArtifactRevised',
  1,
  z.object({
    revision: z.number().int().positive(),
    content: z.string(),
    sha256: z.string(),
  }),
);

/** Events of the artifact family. */
export const ArtifactEvents = [ArtifactRevised] as const;
