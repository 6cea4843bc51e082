// Turning an MCP server's tool list into zot tool registrations: names that fit zot's rule,
// schemas bounded in size and depth, descriptions cut to a sensible length. Whatever does not
// fit is skipped with a note naming the server and the tool.

/** zot's rule for tool names (the strictest among the model providers). */
export const ZOT_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const TOOL_LIMITS = {
  toolsPerServer: 500,
  toolsTotal: 2000,
  schemaChars: 64 * 1024,
  schemaDepth: 24,
  descriptionChars: 2000,
} as const;

export interface McpToolInfo {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly execution?: { readonly taskSupport?: unknown };
}

export interface BridgedTool {
  /** `mcp__<server>__<tool>` */
  readonly zotName: string;
  /** The name the MCP server knows it by. */
  readonly mcpName: string;
  readonly description: string;
  readonly schema: Record<string, unknown>;
}

/** Characters outside zot's tool-name alphabet become `_`. */
export const sanitise = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_');

export const zotToolName = (server: string, tool: string) =>
  `mcp__${sanitise(server)}__${sanitise(tool)}`;

/** Nesting depth of a JSON value, stopping early once past `limit`. */
function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || typeof value !== 'object' || value === null) return depth;
  let deepest = depth;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

/** The schema to register, or why the tool cannot be bridged. */
export function boundSchema(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null) return { type: 'object', properties: {} };
  if (typeof raw !== 'object' || Array.isArray(raw)) return 'its input schema is not an object';
  let text: string;
  try {
    text = JSON.stringify(raw);
  } catch {
    return 'its input schema cannot be serialised';
  }
  if (text.length > TOOL_LIMITS.schemaChars) {
    return `its input schema is over ${TOOL_LIMITS.schemaChars} characters`;
  }
  if (depthOf(raw, TOOL_LIMITS.schemaDepth) > TOOL_LIMITS.schemaDepth) {
    return `its input schema is nested deeper than ${TOOL_LIMITS.schemaDepth} levels`;
  }
  // A fresh copy (the server's object stays untouched); `$schema` names the dialect the server's
  // library wrote, while zot checks every tool schema as draft-07 anyway.
  const { $schema: _dialect, ...schema } = JSON.parse(text) as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== 'object') {
    return `its input schema describes ${JSON.stringify(schema.type)}, not an object`;
  }
  return schema;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The registrations for one server's tools. `taken` holds zot names already used (by other
 * servers); names added here are added to it. `skipped` says what is wrong with a tool or with
 * the configuration (worth a warning); `leftOut` names tools the bridge cannot run by design
 * (listed by /mcp, never warned about). Contract: never throws.
 */
export function bridgeTools(
  server: string,
  tools: readonly McpToolInfo[],
  taken: Set<string>,
  room: number,
): { tools: BridgedTool[]; skipped: string[]; leftOut: string[] } {
  const skipped: string[] = [];
  const leftOut: string[] = [];
  const out: BridgedTool[] = [];
  const limit = Math.min(TOOL_LIMITS.toolsPerServer, room);
  if (tools.length > limit) {
    skipped.push(
      `server "${server}" offers ${tools.length} tools; only the first ${limit} are bridged`,
    );
  }
  for (const tool of tools.slice(0, limit)) {
    const label = `server "${server}" tool ${JSON.stringify(clip(String(tool.name), 80))}`;
    if (typeof tool.name !== 'string' || tool.name === '') {
      skipped.push(`${label}: no name; skipped`);
      continue;
    }
    const zotName = zotToolName(server, tool.name);
    if (!ZOT_TOOL_NAME.test(zotName)) {
      skipped.push(`${label}: ${zotName} is longer than 64 characters; skipped`);
      continue;
    }
    if (taken.has(zotName)) {
      skipped.push(`${label}: ${zotName} is already taken; skipped`);
      continue;
    }
    if (tool.execution?.taskSupport === 'required') {
      leftOut.push(`${label}: it runs only as an MCP task, which the bridge does not support`);
      continue;
    }
    const schema = boundSchema(tool.inputSchema);
    if (typeof schema === 'string') {
      skipped.push(`${label}: ${schema}; skipped`);
      continue;
    }
    taken.add(zotName);
    const about = typeof tool.description === 'string' ? tool.description.trim() : '';
    out.push({
      zotName,
      mcpName: tool.name,
      description: clip(`[MCP ${server}] ${about || tool.name}`, TOOL_LIMITS.descriptionChars),
      schema,
    });
  }
  return { tools: out, skipped, leftOut };
}
