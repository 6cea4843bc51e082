// Ajv's `uniqueItems` and `enum`, replaced by versions linear in the data: Ajv compares items
// pairwise with a deep equality (40,000 items took 9 s, 100,000 took 55 s, the event loop
// blocked all along) and compares a value with each enum member in turn (5,000 members times
// 100,000 items: 12 s). Ours hash each value once by its canonical JSON (util/json-key.ts).
// Used by the run-time validator (agent/validate.ts) and by the generated ones
// (scripts/gen-json-schema-validator.mjs), whose standalone code imports util/json-key.
import {
  _,
  Name,
  str,
  stringify,
  type Ajv,
  type CodeKeywordDefinition,
  type KeywordCxt,
} from 'ajv';
import runtime from '../util/json-key.js';

// How generated code (in src/agent/generated/ or src/tools/generated/) reaches the runtime.
const RUNTIME = _`${new Name('require')}(${'../../util/json-key'})`;

function runtimeFunction(cxt: KeywordCxt, name: keyof typeof runtime) {
  return cxt.gen.scopeValue('func', { ref: runtime[name], code: _`${RUNTIME}.${new Name(name)}` });
}

const uniqueItems: CodeKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) =>
      str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt) {
    if (cxt.schema !== true) return;
    const { gen, data } = cxt;
    const found = gen.const('duplicate', _`${runtimeFunction(cxt, 'findDuplicate')}(${data})`);
    cxt.setParams({ i: _`${found}[0]`, j: _`${found}[1]` });
    cxt.fail(_`${found} !== undefined`);
  },
};

/** Few scalar members: a chain of `===` is faster than a hash (and what Ajv does). */
const SMALL_ENUM = 16;

const isScalar = (value: unknown) => value === null || typeof value !== 'object';

const enumKeyword: CodeKeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  error: {
    message: 'must be equal to one of the allowed values',
    params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
  },
  code(cxt) {
    const { gen, data, schema } = cxt;
    const values = schema as unknown[];
    if (values.length === 0) throw new Error('enum must have non-empty array');
    if (values.length <= SMALL_ENUM && values.every(isScalar)) {
      const equal = values.map((value) => _`${data} === ${stringify(value)}`);
      cxt.pass(equal.reduce((either, next) => _`${either} || ${next}`));
      return;
    }
    const keys = gen.scopeValue('obj', {
      ref: runtime.enumKeys(values),
      code: _`${RUNTIME}.enumKeys(${stringify(values)})`,
    });
    cxt.pass(_`${runtimeFunction(cxt, 'enumHas')}(${keys}, ${data})`);
  },
};

/** Replaces Ajv's own `uniqueItems` and `enum` on `ajv`. Contract: call before compiling. */
export function useLinearKeywords(ajv: Ajv): Ajv {
  ajv.removeKeyword('uniqueItems');
  ajv.removeKeyword('enum');
  ajv.addKeyword(uniqueItems);
  ajv.addKeyword(enumKeyword);
  return ajv;
}
