// Whether a tool's input schema can accept any object at all. The model always sends an object:
// a schema that no object matches (`{"anyOf":[{"type":"string"}]}`, `"not": {}`, an enum of
// strings, a required property that may hold nothing) would refuse every call, so it is refused
// at registration instead, saying why. Conservative: it names only contradictions it can see
// cheaply, and never refuses a schema some object matches.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Keywords that never refuse a value. */
const ANNOTATIONS = new Set([
  ...['$comment', 'description', 'title', 'examples', 'default', 'readOnly', 'writeOnly'],
  ...['$id', '$schema', '$anchor', 'definitions', '$defs', 'deprecated'],
]);

/** `true`, `{}`, or a schema of annotations only. */
function acceptsEverything(schema: unknown): boolean {
  if (schema === true) return true;
  return isObject(schema) && Object.keys(schema).every((key) => ANNOTATIONS.has(key));
}

/** `false`, or `{"not": <everything>}`: no value at all matches. */
function acceptsNothing(schema: unknown): boolean {
  return schema === false || (isObject(schema) && acceptsEverything(schema['not']));
}

/** What the conjuncts of one schema (itself, its `allOf`, its `$ref`) say about the object. */
interface Facts {
  required: Map<string, string>;
  /** Property names that can hold no value, with where. */
  forbidden: Map<string, string>;
  /** Conjuncts with `"additionalProperties": false`: the names they allow. */
  closed: Array<{ allowed: Set<string>; path: string }>;
  maxProperties: { value: number; path: string } | undefined;
  minProperties: number;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** Checks that need no other conjunct: why `node` alone admits no object. */
function ownProblem(node: Json, path: string): string | undefined {
  const type = node['type'];
  if (typeof type === 'string' && type !== 'object') return `${path}/type is "${type}"`;
  if (Array.isArray(type) && !type.includes('object'))
    return `${path}/type allows ${type.map((t) => JSON.stringify(t)).join(', ')}, no object`;
  if (Array.isArray(node['enum']) && !node['enum'].some(isObject))
    return `${path}/enum lists no object`;
  if ('const' in node && !isObject(node['const'])) return `${path}/const is not an object`;
  const not = node['not'];
  if (acceptsEverything(not)) return `${path}/not refuses every value`;
  const onlyType = (schema: Json) =>
    Object.keys(schema).every((key) => key === 'type' || ANNOTATIONS.has(key));
  if (isObject(not) && not['type'] === 'object' && onlyType(not))
    return `${path}/not refuses every object`;
  return undefined;
}

class ObjectCheck {
  private readonly verdicts = new Map<Json, string | undefined>();

  constructor(private readonly refTargets: ReadonlyMap<Json, Json>) {}

  /** Why no object matches `node`, or undefined. Memoised: linear in the schema. */
  problem(node: unknown, path: string): string | undefined {
    if (node === false) return `${path || '(schema)'} is false`;
    if (!isObject(node)) return undefined;
    if (this.verdicts.has(node)) return this.verdicts.get(node);
    this.verdicts.set(node, undefined); // a cycle back here proves nothing
    const facts: Facts = {
      required: new Map(),
      forbidden: new Map(),
      closed: [],
      maxProperties: undefined,
      minProperties: 0,
    };
    const verdict = this.gather(node, path, facts, new Set()) ?? contradiction(facts);
    this.verdicts.set(node, verdict);
    return verdict;
  }

  /** Walks the conjuncts of `node`, collecting facts; returns the first problem found. */
  private gather(node: Json, path: string, facts: Facts, seen: Set<Json>): string | undefined {
    if (seen.has(node)) return undefined;
    seen.add(node);
    const own = ownProblem(node, path);
    if (own) return own;
    const properties = isObject(node['properties']) ? node['properties'] : {};
    for (const name of strings(node['required'])) facts.required.set(name, path);
    for (const [name, schema] of Object.entries(properties))
      if (acceptsNothing(schema)) facts.forbidden.set(name, `${path}/properties/${name}`);
    const patterns = isObject(node['patternProperties'])
      ? Object.keys(node['patternProperties']).length
      : 0;
    if (acceptsNothing(node['additionalProperties']) && patterns === 0)
      facts.closed.push({ allowed: new Set(Object.keys(properties)), path });
    const max = node['maxProperties'];
    if (typeof max === 'number' && (!facts.maxProperties || max < facts.maxProperties.value))
      facts.maxProperties = { value: max, path };
    const min = node['minProperties'];
    if (typeof min === 'number') facts.minProperties = Math.max(facts.minProperties, min);
    for (const keyword of ['anyOf', 'oneOf']) {
      const branches = node[keyword];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const problems = branches.map((branch, i) => this.problem(branch, `${path}/${keyword}/${i}`));
      if (problems.every((problem) => problem !== undefined))
        return `${path}/${keyword}: no branch accepts an object (${problems[0]})`;
    }
    const conjuncts: Array<[unknown, string]> = [];
    if (Array.isArray(node['allOf']))
      node['allOf'].forEach((branch, i) => conjuncts.push([branch, `${path}/allOf/${i}`]));
    const target = this.refTargets.get(node);
    if (target) conjuncts.push([target, `${path}/$ref`]);
    for (const [conjunct, where] of conjuncts) {
      if (conjunct === false) return `${where} is false`;
      if (!isObject(conjunct)) continue;
      const problem = this.gather(conjunct, where, facts, seen);
      if (problem) return problem;
    }
    return undefined;
  }
}

/** A contradiction between the facts of several conjuncts. */
function contradiction(facts: Facts): string | undefined {
  for (const [name, where] of facts.required) {
    const forbidden = facts.forbidden.get(name);
    if (forbidden !== undefined)
      return `property "${name}" is required (${where || '(schema)'}) but ${forbidden} allows no value`;
    for (const closed of facts.closed) {
      if (!closed.allowed.has(name))
        return `property "${name}" is required (${where || '(schema)'}) but ${closed.path || '(schema)'} allows no such property ("additionalProperties": false)`;
    }
  }
  const { maxProperties, minProperties, required } = facts;
  if (maxProperties && maxProperties.value < Math.max(minProperties, required.size))
    return `${maxProperties.path}/maxProperties is ${maxProperties.value}, below the ${Math.max(minProperties, required.size)} properties required`;
  return undefined;
}

/**
 * Why no JSON object can match `schema`, or undefined when one may. `refTargets` maps each node
 * holding a `$ref` to the schema it resolves to. Contract: never throws; linear in the schema.
 */
export function noObjectProblem(
  schema: Json,
  refTargets: ReadonlyMap<Json, Json>,
): string | undefined {
  return new ObjectCheck(refTargets).problem(schema, '');
}
