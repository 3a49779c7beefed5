function invoiceTotal(lines) {
  let total = 0;
  for (const line of lines) {
    if (!Number.isInteger(line.qty) || line.qty < 0 || line.qty > 10000) {
      throw new RangeError('bad qty');
    }
    total += Math.round(line.qty * line.unitPrice * (100 - line.discountPct) / 100);
  }
  return total;
}