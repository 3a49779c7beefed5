function cleanEmails(addresses) {
  const blocked = ['example.com', 'example.net', 'mailinator.com', 'tempmail.dev'];
  const seen = {};
  const out = [];
  for (const entry of addresses) {
    if (typeof entry !== 'string') continue;
    let address = entry.trim().toLowerCase();
    if (/\s/.test(address)) continue;
    const parts = address.split('@');
    if (parts.length !== 2) continue;
    let local = parts[0];
    let domain = parts[1];
    if (local === '' || domain.indexOf('.') < 0 || domain.startsWith('.') || domain.endsWith('.')) continue;
    if (domain === 'gmail.com' || domain === 'googlemail.com') {
      const plus = local.indexOf('+');
      if (plus >= 0) local = local.slice(0, plus);
      local = local.split('.').join('');
      domain = 'gmail.com';
    }
    if (local === '') continue;
    if (blocked.indexOf(domain) >= 0) continue;
    const clean = local + '@' + domain;
    if (seen[clean] === true) continue;
    seen[clean] = true;
    out.push(clean);
  }
  return out;
}