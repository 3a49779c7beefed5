function invoiceTotal(lines) {
  const round = (x) => Math.round(x);
  let total = 0;
  for (const line of lines) {
    const amount = line.qty * line.unitPrice * (100 - line.discountPct) / 100;
    total += amount;
  }
  return round(total);
}