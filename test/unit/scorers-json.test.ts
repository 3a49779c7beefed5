// The JSON scorers (isJson, jsonSchema with zod or a JSON Schema) and the JSON Schema subset
// validator: hand-worked verdicts and reasons, and the keywords refused up front.
import { expect } from 'chai';
import { z } from 'zod';
import { compileJsonSchema, isJson, JsonSchemaError, jsonSchema, ScorerOptionError } from '../../src/graders/index.js';

const SUPPORTED =
  '(supported: type, enum, const, properties, required, additionalProperties, items, minItems, maxItems, minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum, exclusiveMaximum, anyOf)';

describe('scorers: isJson', () => {
  const s = isJson();

  it('passes on JSON, whole or inside one ``` fence, and names its kind', () => {
    expect(s.name).to.equal('is-json');
    expect(s.score('{"a": 1}', undefined)).to.deep.equal({ passed: true, detail: 'output is JSON (object)' });
    expect(s.score('```json\n[1, 2]\n```', undefined)).to.deep.equal({ passed: true, detail: 'output is JSON (array)' });
    expect(s.score('```\n"hi"\n```\n', undefined)).to.deep.equal({ passed: true, detail: 'output is JSON (string)' });
    expect(s.score(' 42 ', undefined)).to.deep.equal({ passed: true, detail: 'output is JSON (number)' });
    expect(s.score('null', undefined)).to.deep.equal({ passed: true, detail: 'output is JSON (null)' });
  });

  it('fails on prose around JSON, two fences, a broken fence, empty output; ignores expected', () => {
    expect(s.score('Here: {"a":1}', undefined)).to.deep.equal({ passed: false, detail: 'expected JSON, got "Here: {\\"a\\":1}"' });
    expect(s.score('```json\n{"a":1}\n```\n```json\n{"b":2}\n```', undefined).passed).to.equal(false);
    expect(s.score('```json\n{"a":1}', undefined).passed).to.equal(false);
    expect(s.score('', undefined)).to.deep.equal({ passed: false, detail: 'expected JSON, got ""' });
    expect(s.score('{a: 1}', undefined).passed).to.equal(false);
    expect(s.problem(undefined)).to.equal(null);
  });
});

describe('scorers: jsonSchema with a zod schema', () => {
  const Person = z.object({ name: z.string(), tags: z.array(z.string()) });

  it('passes on matching JSON (a fence allowed) and lists zod issues with their paths', () => {
    const s = jsonSchema(Person);
    expect(s.name).to.equal('json-schema');
    expect(s.problem(undefined)).to.equal(null);
    expect(s.score('```json\n{"name": "Ada", "tags": []}\n```', undefined)).to.deep.equal({ passed: true, detail: 'output matches the schema' });
    expect(s.score('{"tags": [1]}', undefined)).to.deep.equal({
      passed: false,
      detail:
        'output does not match the schema: $.name: Invalid input: expected string, received undefined; $.tags[0]: Invalid input: expected string, received number',
    });
    expect(s.score('Ada', undefined)).to.deep.equal({ passed: false, detail: 'expected JSON matching the schema, got non-JSON "Ada"' });
  });

  it('a refinement that throws, or an async one, is a grading error, never a pass', () => {
    const throwing = jsonSchema(
      z.string().refine(() => {
        throw new Error('boom');
      }),
    );
    expect(throwing.score('"x"', undefined)).to.deep.equal({ passed: false, detail: 'grading error: the zod schema threw: boom', error: true });
    const asynchronous = jsonSchema(z.string().refine(async () => true));
    const v = asynchronous.score('"x"', undefined);
    expect(v.error).to.equal(true);
    expect(v.passed).to.equal(false);
    expect(v.detail).to.match(/^grading error: the zod schema threw: /);
  });
});

describe('scorers: jsonSchema with a JSON Schema', () => {
  const schema = {
    type: 'object',
    required: ['name', 'age'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[A-Z]' },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 2 },
      kind: { const: 'person' },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
    additionalProperties: false,
  };

  it('passes on a matching value', () => {
    const s = jsonSchema(schema);
    expect(s.score('{"name": "Ada", "age": 36, "tags": ["a"], "kind": "person", "note": null}', undefined)).to.deep.equal({
      passed: true,
      detail: 'output matches the schema',
    });
  });

  it('lists the first three issues in a fixed order, then how many more', () => {
    const s = jsonSchema(schema);
    expect(s.score('{"age": 1.5, "extra": true}', undefined)).to.deep.equal({
      passed: false,
      detail:
        'output does not match the schema: $: missing required property "name"; $.age: expected integer, got number 1.5; $: property "extra" is not allowed',
    });
    expect(s.score('{"name": "ada", "age": -1, "tags": ["a", "c", "b"], "kind": "robot", "note": 3}', undefined)).to.deep.equal({
      passed: false,
      detail:
        'output does not match the schema: $.name: expected a match for pattern "^[A-Z]", got "ada"; $.age: expected at least 0, got -1; $.tags[1]: expected one of ["a","b"], got "c"; and 3 more',
    });
  });

  it('takes the schema from expected, and problem() refuses one it cannot check', () => {
    const s = jsonSchema();
    expect(s.problem(schema)).to.equal(null);
    expect(s.problem(undefined)).to.equal('has no "expected"');
    expect(s.score('{"name": "Ada", "age": 3}', schema).passed).to.equal(true);
    expect(s.score('{"name": "Ada"}', schema).detail).to.equal('output does not match the schema: $: missing required property "age"');
    expect(s.problem({ type: 'object', oneOf: [] })).to.equal(
      `"expected" is not a schema grader json-schema can use: JSON Schema keyword "oneOf" at # is not supported ${SUPPORTED}`,
    );
    expect(s.problem({ properties: { email: { type: 'string', format: 'email' } } })).to.equal(
      `"expected" is not a schema grader json-schema can use: JSON Schema keyword "format" at #/properties/email is not supported ${SUPPORTED}`,
    );
    expect(s.problem('a string')).to.equal(
      '"expected" is not a schema grader json-schema can use: a JSON Schema must be an object or a boolean, got "a string" (at #)',
    );
  });

  it('refuses an unusable schema when the scorer is built, as a one-line user error naming the keyword', () => {
    expect(() => jsonSchema({ type: 'strin' })).to.throw(
      ScorerOptionError,
      'json-schema: JSON Schema keyword "type" at # must be one of null, boolean, object, array, number, integer, string, or a list of distinct ones, got "strin"',
    );
    expect(() => jsonSchema({ $ref: '#/$defs/x' })).to.throw(ScorerOptionError, `json-schema: JSON Schema keyword "$ref" at # is not supported ${SUPPORTED}`);
    expect(() => jsonSchema({ type: 'object', requried: ['a'] })).to.throw(ScorerOptionError, /keyword "requried" at # is not supported/);
  });
});

describe('JSON Schema subset validator', () => {
  const issues = (schema: unknown, value: unknown) => compileJsonSchema(schema).validate(value);

  it('type: one or a list; integer is a whole number; number takes integers', () => {
    expect(issues({ type: 'number' }, 2)).to.deep.equal([]);
    expect(issues({ type: 'integer' }, 2.0)).to.deep.equal([]);
    expect(issues({ type: 'integer' }, 2 ** 60)).to.deep.equal([]);
    expect(issues({ type: ['string', 'null'] }, 1)).to.deep.equal([{ path: '$', message: 'expected string or null, got integer 1' }]);
    expect(issues({ type: 'object' }, [])).to.deep.equal([{ path: '$', message: 'expected object, got array []' }]);
    expect(issues({ type: 'array' }, null)).to.deep.equal([{ path: '$', message: 'expected array, got null' }]);
  });

  it('string lengths count code points, not UTF-16 units', () => {
    expect(issues({ maxLength: 2 }, '👍👍')).to.deep.equal([]);
    expect(issues({ minLength: 3 }, '👍👍')).to.deep.equal([{ path: '$', message: 'expected at least 3 character(s), got 2' }]);
    expect(issues({ maxLength: 1 }, 'ab')).to.deep.equal([{ path: '$', message: 'expected at most 1 character(s), got 2' }]);
  });

  it('keywords of one type leave other types alone', () => {
    expect(issues({ minLength: 5, minimum: 3, required: ['a'], items: false }, 7)).to.deep.equal([]);
    expect(issues({ minLength: 5, minimum: 3, required: ['a'], items: false }, 'abcde')).to.deep.equal([]);
  });

  it('bounds, exclusive bounds, item counts, enum and const (deep)', () => {
    expect(issues({ exclusiveMinimum: 0, exclusiveMaximum: 10 }, 0)).to.deep.equal([{ path: '$', message: 'expected more than 0, got 0' }]);
    expect(issues({ exclusiveMaximum: 10 }, 10)).to.deep.equal([{ path: '$', message: 'expected less than 10, got 10' }]);
    expect(issues({ maximum: 10 }, 10)).to.deep.equal([]);
    expect(issues({ minItems: 1 }, [])).to.deep.equal([{ path: '$', message: 'expected at least 1 item(s), got 0' }]);
    expect(issues({ const: { a: [1] } }, { a: [1] })).to.deep.equal([]);
    expect(issues({ enum: [1, '1'] }, true)).to.deep.equal([{ path: '$', message: 'expected one of [1,"1"], got true' }]);
  });

  it('properties and additionalProperties as a schema; odd keys in brackets', () => {
    const schema = { properties: { 'first name': { type: 'string' } }, additionalProperties: { type: 'number' } };
    expect(issues(schema, { 'first name': 1, n: 'x' })).to.deep.equal([
      { path: '$["first name"]', message: 'expected string, got integer 1' },
      { path: '$.n', message: 'expected number, got string "x"' },
    ]);
  });

  it('anyOf passes when one alternative does; boolean schemas', () => {
    const schema = { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 10 }] };
    expect(issues(schema, 12)).to.deep.equal([]);
    expect(issues(schema, 5)).to.deep.equal([{ path: '$', message: 'matches none of the 2 anyOf alternatives' }]);
    expect(issues(true, 5)).to.deep.equal([]);
    expect(issues({ properties: { x: false } }, { x: 1 })).to.deep.equal([{ path: '$.x', message: 'no value is allowed here' }]);
  });

  it('accepts annotations, refuses bad keyword values and tuples, with where they are', () => {
    expect(issues({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'T', description: 'd', examples: [1], type: 'number' }, 1)).to.deep.equal(
      [],
    );
    const refuse = (schema: unknown) => () => compileJsonSchema(schema);
    expect(refuse({ minLength: -1 })).to.throw(JsonSchemaError, 'JSON Schema keyword "minLength" at # must be a non-negative integer, got -1');
    expect(refuse({ properties: { a: { pattern: '(' } } })).to.throw(
      JsonSchemaError,
      /^JSON Schema keyword "pattern" at #\/properties\/a must be a valid regular expression/,
    );
    expect(refuse({ items: [{ type: 'string' }] })).to.throw(
      JsonSchemaError,
      'JSON Schema keyword "items" at # is a list (a tuple), which is not supported: give one schema for every item',
    );
    expect(refuse({ exclusiveMinimum: true })).to.throw(
      JsonSchemaError,
      /"exclusiveMinimum" at # must be a number \(the draft-4 boolean form is not supported\)/,
    );
    expect(refuse({ required: ['a', 'a'] })).to.throw(JsonSchemaError, /"required" at # must be a list of distinct property names/);
    expect(refuse({ anyOf: [{ type: 'string' }, { not: {} }] })).to.throw(JsonSchemaError, /keyword "not" at #\/anyOf\/1 is not supported/);
    expect(refuse({ properties: { 'a/b': { if: {} } } })).to.throw(JsonSchemaError, /keyword "if" at #\/properties\/a~1b is not supported/);
  });
});
