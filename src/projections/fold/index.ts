// The projections' footing: what a projection is (a fold with an initial state), which events reach
// which projection (routing), and the provenance fold that every other output names. The row,
// summary, usage and comparison folds stand on it; it imports none of them.
export { fold, type Projection } from './projection.js';
export { provenanceProjection, type RunFile } from './provenance.js';
export {
  isRoutedTo,
  PROJECTION_NAMES,
  ROUTES,
  routed,
  typesRoutedTo,
  type ProjectionName,
  type RoutedEvent,
  type RoutedFold,
  type RoutedType,
} from './routing.js';
