// The given/when/then helper for decider tests lives in src (evalog/testing), shared with users' tests.
export { deciderSpec, ev, type Decider, type Expected } from '../../src/api/testing/decider.js';
