// The tool registry the agent reads before every model request. Built-in tools win name
// conflicts; other sources (extensions) contribute tools that may change at any time.
import type { Tool } from '../agent/tool.js';

/** A source of tools beside the built-ins, e.g. the extension host. */
export interface ToolSource {
  /** Tools offered to the model now (deferred ones only once activated). */
  active(): Tool[];
  /** Any registered tool by name, activated or not. */
  find(name: string): Tool | undefined;
}

export class ToolRegistry {
  private readonly sources: ToolSource[] = [];

  constructor(private readonly builtins: Tool[]) {}

  addSource(source: ToolSource): void {
    this.sources.push(source);
  }

  builtinNames(): Set<string> {
    return new Set(this.builtins.map((tool) => tool.name));
  }

  active(): Tool[] {
    const seen = this.builtinNames();
    const tools = [...this.builtins];
    for (const source of this.sources) {
      for (const tool of source.active()) {
        if (seen.has(tool.name)) continue;
        seen.add(tool.name);
        tools.push(tool);
      }
    }
    return tools;
  }

  /** Only tools that are advertised can run; a deferred tool must be activated first. */
  find(name: string): Tool | undefined {
    return this.active().find((tool) => tool.name === name);
  }
}
