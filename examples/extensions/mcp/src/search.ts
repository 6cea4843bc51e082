// mcp_search: ranking deferred MCP tools against the model's query by the words they share.
// A name hit weighs more than a description hit; an exact tool name wins outright.
import type { BridgedTool } from './tools.js';

export const SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      maxLength: 500,
      description: 'words describing the tool you need, or its exact name',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 20,
      description: 'how many tools to activate (5)',
    },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);

export function searchTools(
  query: string,
  tools: readonly BridgedTool[],
  limit: number,
): BridgedTool[] {
  const wanted = query.trim().toLowerCase();
  const terms = [...new Set(words(query))];
  const scored = tools.map((tool) => {
    if (tool.zotName.toLowerCase() === wanted || tool.mcpName.toLowerCase() === wanted) {
      return { tool, score: 1000 };
    }
    const name = new Set(words(tool.mcpName));
    const about = tool.description.toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (name.has(term)) score += 10;
      else if (tool.mcpName.toLowerCase().includes(term)) score += 5;
      if (about.includes(term)) score += 2;
    }
    return { tool, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.zotName.localeCompare(b.tool.zotName))
    .slice(0, Math.max(1, Math.min(20, limit)))
    .map((s) => s.tool);
}
