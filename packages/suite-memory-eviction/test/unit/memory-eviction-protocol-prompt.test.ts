import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { buildRequestPayload, fingerprintText, type RequestPayload, requestFingerprint } from '../../src/fingerprint.js';
import { renderMessages, renderStoredMemory } from '../../src/prompt.js';
import { loadProtocol } from '../../src/protocol.js';
import { PyFloat, parsePythonJson, pyFloatRepr, pythonJson } from '../../src/python-json.js';

const TEMPLATE = 'SYSTEM:\n\nsys for {{QUESTION}}\n\n\nUSER:\n{{CURRENT_DATE_SECTION}}MEMORY:\n{{STORED_MEMORY}}\n\nQ: {{QUESTION}}\n';
const RENDER_TEST = {
  question: 'Where does the user live?',
  questionDate: '2023/05/20 (Sat) 02:21',
  facts: [
    { id: 'fact-b', content: 'The user moved to Lisbon.' },
    { id: 'fact-a', content: 'The user lived in Porto.' },
  ],
};

describe('memory-eviction prompt: renderMessages (A6)', () => {
  it('splits system/user, strips \\n around each part, sorts facts by id and fills the placeholders of the user part only (the system part is sent as written, as upstream does)', () => {
    expect(renderMessages(TEMPLATE, RENDER_TEST)).to.deep.equal([
      { role: 'system', content: 'sys for {{QUESTION}}' },
      {
        role: 'user',
        content:
          'CURRENT DATE: 2023/05/20 (Sat) 02:21\nMEMORY:\n[fact-a]\nThe user lived in Porto.\n\n[fact-b]\nThe user moved to Lisbon.\n\nQ: Where does the user live?',
      },
    ]);
  });

  it('renders no date section when there is no question date', () => {
    const [, user] = renderMessages(TEMPLATE, { question: 'Q?', questionDate: null, facts: [{ id: 'fact-a', content: 'content' }] });
    expect(user.content).to.equal('MEMORY:\n[fact-a]\ncontent\n\nQ: Q?');
    const [, empty] = renderMessages(TEMPLATE, { question: 'Q?', questionDate: '', facts: [{ id: 'fact-a', content: 'content' }] });
    expect(empty.content).to.equal(user.content);
  });

  it('substitutes in upstream order (date, memory, question), each step over the text so far: a later placeholder inside facts is filled, an earlier one inside the question is not', () => {
    const [, user] = renderMessages(TEMPLATE, { question: 'about {{STORED_MEMORY}}', questionDate: null, facts: [{ id: 'x', content: 'says {{QUESTION}}' }] });
    expect(user.content).to.equal('MEMORY:\n[x]\nsays about {{STORED_MEMORY}}\n\nQ: about {{STORED_MEMORY}}');
    // A `$&` in the inserted text is literal, not a replacement pattern.
    const [, dollar] = renderMessages(TEMPLATE, { question: 'cost $& $1?', questionDate: null, facts: [{ id: 'x', content: 'c' }] });
    expect(dollar.content).to.equal('MEMORY:\n[x]\nc\n\nQ: cost $& $1?');
  });

  it('requires the placeholders in the USER part (a placeholder in the system part alone does not count)', () => {
    expect(() => renderMessages('SYSTEM:\n{{QUESTION}}\n\nUSER:\n{{CURRENT_DATE_SECTION}}{{STORED_MEMORY}}', RENDER_TEST)).to.throw(/QUESTION.*USER part/);
  });

  it('sorts ids by code point, not by locale', () => {
    expect(
      renderStoredMemory([
        { id: 'b', content: '2' },
        { id: 'B', content: '1' },
        { id: 'gold_x', content: '4' },
        { id: 'd_x_0_q', content: '3' },
      ]),
    ).to.equal('[B]\n1\n\n[b]\n2\n\n[d_x_0_q]\n3\n\n[gold_x]\n4');
  });

  it('refuses zero facts and duplicate ids', () => {
    expect(() => renderMessages(TEMPLATE, { ...RENDER_TEST, facts: [] })).to.throw(/zero facts/);
    expect(() =>
      renderMessages(TEMPLATE, {
        ...RENDER_TEST,
        facts: [
          { id: 'a', content: '1' },
          { id: 'a', content: '2' },
        ],
      }),
    ).to.throw(/duplicate fact id "a"/);
  });

  it('refuses templates without SYSTEM:, USER: or a placeholder', () => {
    expect(() => renderMessages('system:\n\n\nUSER:\n{{CURRENT_DATE_SECTION}}{{STORED_MEMORY}}{{QUESTION}}', RENDER_TEST)).to.throw(/SYSTEM/);
    expect(() => renderMessages('SYSTEM:\nx\nUSER:\n{{CURRENT_DATE_SECTION}}{{STORED_MEMORY}}{{QUESTION}}', RENDER_TEST)).to.throw(/USER/);
    expect(() => renderMessages('SYSTEM:\nx\n\nUSER:\n{{STORED_MEMORY}}{{QUESTION}}', RENDER_TEST)).to.throw(/CURRENT_DATE_SECTION/);
  });

  it('renders the versioned prompt: instructions in system, memory and question in user', () => {
    const protocol = loadProtocol();
    const [system, user] = renderMessages(protocol.answerPrompt, RENDER_TEST);
    expect(system.content).to.include('INSUFFICIENT');
    expect(system.content).not.to.match(/^\n|\n$/);
    expect(user.content).to.match(/^CURRENT DATE: 2023\/05\/20 \(Sat\) 02:21\n/);
    expect(user.content).to.include('[fact-a]\nThe user lived in Porto.\n\n[fact-b]\nThe user moved to Lisbon.');
    expect(user.content.endsWith('Where does the user live?')).to.equal(true);
  });
});

describe('memory-eviction fingerprint: Python json.dumps(sort_keys=True, ensure_ascii=False)', () => {
  // Vectors computed with CPython 3.11 json.dumps(payload, ensure_ascii=False, sort_keys=True).
  const messages = [
    { role: 'system' as const, content: 'Answer from memory only.\nReply INSUFFICIENT otherwise.' },
    {
      role: 'user' as const,
      content:
        'CURRENT DATE: 2023/05/20 (Sat) 02:21\nSTORED MEMORY:\n[fact-a]\nThe user lives in Zürich — “quoted” "x" \\ tab\there \u0001 ctrl \u2028 sep 😀\n\n[fact-b]\nsecond\n\nQUESTION: Where does the user live?',
    },
  ];
  const payload: RequestPayload = { model: 'deepseek-v4-flash', temperature: 0, max_tokens: 2048, stream: false, messages };

  it('serialises like Python: sorted keys, ", " and ": ", non-ASCII raw, temperature 0.0', () => {
    expect(fingerprintText(payload)).to.equal(
      '{"max_tokens": 2048, "messages": [{"content": "Answer from memory only.\\nReply INSUFFICIENT otherwise.", "role": "system"}, ' +
        '{"content": "CURRENT DATE: 2023/05/20 (Sat) 02:21\\nSTORED MEMORY:\\n[fact-a]\\nThe user lives in Zürich — “quoted” \\"x\\" \\\\ tab\\there \\u0001 ctrl \u2028 sep 😀\\n\\n[fact-b]\\nsecond\\n\\nQUESTION: Where does the user live?", "role": "user"}], ' +
        '"model": "deepseek-v4-flash", "stream": false, "temperature": 0.0}',
    );
  });

  it('hashes to the CPython fingerprint; an int temperature would give another one', () => {
    expect(requestFingerprint(payload)).to.equal('6c8b37f41fb7a4cb283f868df127e7917e8e48ec042b38bdd3cfc9906483ce99');
    const asInt = pythonJson(payload); // no float fields: temperature written as 0
    expect(asInt).to.include('"temperature": 0}');
    expect(createHash('sha256').update(asInt, 'utf8').digest('hex')).to.equal('5cf41ba5c6abe2e1febaecfaef1bdc1fca692975368be3f99a0f25a667f59374');
  });

  it('builds the payload from the config: same kept set → same fingerprint whatever the order', () => {
    const protocol = loadProtocol();
    const a = renderMessages(protocol.answerPrompt, RENDER_TEST);
    const b = renderMessages(protocol.answerPrompt, { ...RENDER_TEST, facts: [...RENDER_TEST.facts].reverse() });
    const fa = requestFingerprint(buildRequestPayload(protocol.config.qa, a));
    expect(fa).to.match(/^[0-9a-f]{64}$/);
    expect(requestFingerprint(buildRequestPayload(protocol.config.qa, b))).to.equal(fa);
    const c = renderMessages(protocol.answerPrompt, { ...RENDER_TEST, facts: RENDER_TEST.facts.slice(0, 1) });
    expect(requestFingerprint(buildRequestPayload(protocol.config.qa, c))).not.to.equal(fa);
    expect(fingerprintText(buildRequestPayload(protocol.config.qa, a))).to.include('"temperature": 0.0');
  });

  it('writes floats as Python repr does', () => {
    const vectors: [number, string][] = [
      [0, '0.0'],
      [-0, '-0.0'],
      [1, '1.0'],
      [3, '3.0'],
      [-2, '-2.0'],
      [0.1, '0.1'],
      [0.65, '0.65'],
      [2.5, '2.5'],
      [0.30000000000000004, '0.30000000000000004'],
      [0.9199999999999999, '0.9199999999999999'],
      [1e16, '1e+16'],
      [1.5e16, '1.5e+16'],
      // biome-ignore lint/correctness/noPrecisionLoss: the literal is the input under test (a decimal that is no double; JS, like Python, reads 12345678901234568, which Python prints as 1.2345678901234568e+16)
      [12345678901234567, '1.2345678901234568e+16'],
      [9999999999999998, '9999999999999998.0'],
      [123456789012345.6, '123456789012345.6'],
      [1e22, '1e+22'],
      [1e-4, '0.0001'],
      [0.000123, '0.000123'],
      [1e-5, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [-Infinity, '-Infinity'],
    ];
    for (const [x, repr] of vectors) expect(pyFloatRepr(x), String(x)).to.equal(repr);
  });

  it('sorts keys by code point at every depth and marks floats by key or PyFloat', () => {
    const value = { b: 1, a: 'café', é: [1, new PyFloat(2), null, true], A: { z: 0, y: '\u007f' } };
    expect(pythonJson(value)).to.equal('{"A": {"y": "\u007f", "z": 0}, "a": "café", "b": 1, "é": [1, 2.0, null, true]}');
    expect(pythonJson({ t: 1, n: { t: 2 } }, { floatFields: ['t'] })).to.equal('{"n": {"t": 2.0}, "t": 1.0}');
    expect(pythonJson({ b: 1, a: 2 }, { sortKeys: false })).to.equal('{"b": 1, "a": 2}');
    expect(pythonJson(2n ** 70n)).to.equal('1180591620717411303424');
    expect(pythonJson(0.5)).to.equal('0.5');
  });

  it('parses like json.loads: floats stay floats, big ints exact, NaN/Infinity accepted', () => {
    const parsed = parsePythonJson(' [3.0, 3, 1e2, -0.5, 12345678901234567890, NaN, -Infinity, "a\\u00e9\\n", {"k": {}}] ') as unknown[];
    expect(pythonJson(parsed)).to.equal('[3.0, 3, 100.0, -0.5, 12345678901234567890, NaN, -Infinity, "aé\\n", {"k": {}}]');
    expect(() => parsePythonJson('[1,]')).to.throw(SyntaxError);
    expect(() => parsePythonJson('{"a": 1} x')).to.throw(/Extra data/);
    expect(() => parsePythonJson('"tab\there"')).to.throw(/control character/);
    expect(parsePythonJson('{"__proto__": 1}')).to.have.own.property('__proto__', 1);
  });
});
