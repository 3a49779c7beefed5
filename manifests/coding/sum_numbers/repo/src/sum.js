// Adds up a list of numbers (see TASK.md).
export function sum(numbers) {
  throw new Error('sum is not written yet');
}
