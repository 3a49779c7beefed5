// Turns a sentence around, word by word (see TASK.md).
export function reverseWords(text) {
  throw new Error('reverseWords is not written yet');
}
