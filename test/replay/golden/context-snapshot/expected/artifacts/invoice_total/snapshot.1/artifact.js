function invoiceTotal(lines) {
  let total = 0;
  for (const line of lines) {
    const qty = line.qty;
    if (!Number.isInteger(qty) || qty < 0 || qty > 10000) {
      throw new RangeError('qty must be an integer from 0 to 10000, got ' + qty);
    }
    const hundredths = qty * line.unitPrice * (100 - line.discountPct);
    const cents = Math.sign(hundredths) * Math.floor(Math.abs(hundredths) / 100 + 0.5);
    total += cents;
  }
  return total;
}