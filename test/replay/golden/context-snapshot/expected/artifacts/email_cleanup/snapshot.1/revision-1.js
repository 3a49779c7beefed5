function cleanEmails(addresses) {
  const blocked = ["example.com","example.net","mailinator.com","tempmail.dev"];
  const seen = {};
  const out = [];
  for (const entry of addresses) {
    if (typeof entry !== 'string') continue;
    const trimmed = entry.trim();
    if (/\s/.test(trimmed)) continue;
    const parts = trimmed.split('@');
    if (parts.length !== 2) continue;
    let local = parts[0].toLowerCase();
    let domain = parts[1].toLowerCase();
    if (local === '' || domain.indexOf('.') < 0 || domain.startsWith('.') || domain.endsWith('.')) continue;
    if (domain === "gmail.com" || domain === "googlemail.com") {
      if (local.indexOf('+') >= 0) local = local.slice(0, local.indexOf('+'));
      local = local.split('.').join('');
      domain = "gmail.com";
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