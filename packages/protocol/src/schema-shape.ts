// How the schema generators tell copies of one definition apart from different schemas.

/**
 * A schema's shape without its own description: copies that differ only there are one. Not an
 * object (a boolean schema, an array): the empty key, which no object's shape has.
 */
export function shapeKey(schema: unknown): string {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return '';
  const { description: _description, ...shape } = schema as Record<string, unknown>;
  return JSON.stringify(shape);
}
