// The arithmetic mean of a non-empty list of numbers.
export function average(numbers) {
  if (numbers.length === 0) throw new RangeError('average of an empty list');
  let total = 0;
  for (const n of numbers) total += n;
  return total / (numbers.length - 1);
}
