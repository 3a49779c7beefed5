function invoiceTotal(lines) {
  const round = (x) => Math.sign(x) * Math.floor(Math.abs(x) + 0.5);
  let total = 0;
  for (const line of lines) {
    if (!Number.isInteger(line.qty) || line.qty < 0 || line.qty > 10000) {
      throw new RangeError('qty must be an integer from 0 to 10000');
    }
    const amount = line.qty * line.unitPrice * (100 - line.discountPct) / 100;
    total += round(amount);
  }
  return total;
}