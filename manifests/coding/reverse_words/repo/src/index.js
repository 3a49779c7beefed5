// The package's entry point.
export { reverseWords } from './words.js';
