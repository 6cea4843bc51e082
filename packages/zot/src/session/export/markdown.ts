// A session as Markdown that keeps its text exactly: the prompts, answers and summaries are
// written as they are (they are Markdown already) between a pair of HTML comment lines carrying
// a random token that no text of the session holds, so a reader can take each one back out
// verbatim whatever it contains; tool arguments and output go in fences longer than any run of
// backticks inside. Headings and labels are for people; the comments are invisible when rendered.
import type { ImageBlock, ToolCallBlock, ToolResultBlock } from '../../providers/types.js';
import { nodeCrypto } from '../../util/builtins.js';
import { terminalSafe } from '../../util/terminal-text.js';
import { resultsByCall, type ExportDocument, type ExportItem } from './document.js';
import { fenceFor, unclosedFence } from './fences.js';

/** Line-shaped text for a heading or label: one line, nothing a terminal or renderer acts on. */
function oneLine(text: string): string {
  return terminalSafe(text.replace(/\r?\n/g, ' '));
}

/** `text` as inline code, delimited by more backticks than it holds. */
export function inlineCode(text: string): string {
  const flat = oneLine(text);
  let longest = 0;
  for (const run of flat.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A fenced block holding `text` exactly (its lines between the fences). */
export function fenced(text: string, info: string): string {
  const fence = fenceFor(text);
  return `${fence}${info}\n${text}\n${fence}`;
}

class TokenClash extends Error {}

class MarkdownWriter {
  private readonly out: string[] = [];
  private readonly results: Map<string, ToolResultBlock>;

  constructor(
    private readonly doc: ExportDocument,
    private readonly token: string,
  ) {
    this.results = resultsByCall(doc.items);
  }

  /** Text kept verbatim between marker lines (`kind` says what it is; thinking is quoted). */
  private block(kind: 'user' | 'assistant' | 'thinking' | 'summary' | 'merge', text: string): void {
    if (text.includes(this.token)) throw new TokenClash();
    const body =
      kind === 'thinking'
        ? text
            .split('\n')
            .map((line) => (line === '' ? '>' : `> ${line}`))
            .join('\n')
        : text;
    this.out.push(`<!-- zot:${this.token} ${kind} -->\n${body}\n<!-- /zot:${this.token} -->`);
    // A code block the text leaves open would swallow the rest of the page when rendered.
    const open = kind === 'thinking' ? undefined : unclosedFence(text);
    if (open) this.out.push(open);
  }

  private image(block: ImageBlock): void {
    const kib = Math.round((block.data.length * 3) / 4 / 1024);
    this.out.push(`*[image: ${oneLine(block.mime_type)}, ${kib} KiB, not included]*`);
  }

  private result(result: ToolResultBlock, label: string): void {
    const from = result.attribution ? ` (from ${inlineCode(result.attribution.extension)})` : '';
    this.out.push(`**${label}**${from}:`);
    if (result.content.length === 0) this.out.push('*(no output)*');
    for (const block of result.content) {
      if (block.type === 'text') this.out.push(fenced(block.text, 'text'));
      else this.image(block);
    }
  }

  private call(call: ToolCallBlock): void {
    this.out.push(`**Tool call:** ${inlineCode(call.name)}`);
    this.out.push(fenced(JSON.stringify(call.args, null, 2), 'json'));
    const result = this.results.get(call.id);
    if (result) this.result(result, result.is_error ? 'Error' : 'Result');
    else this.out.push('*(no result was recorded)*');
  }

  private item(item: ExportItem, turn: number | undefined): void {
    if (item.kind !== 'message') {
      const time = oneLine(item.time);
      if (item.kind === 'compaction') {
        this.out.push(
          `> **Compacted** (${time}): from here the model saw this summary and the last ${item.kept} messages.`,
        );
        this.block('summary', item.summary);
      } else if (item.kind === 'merge') {
        this.out.push(`> **Merged from another branch** (${time}): ${oneLine(item.label)}`);
        this.block('merge', item.text);
      } else if (item.kind === 'clear')
        this.out.push(`> **Cleared** (${time}): the model saw nothing before this point.`);
      else if (item.kind === 'rewind')
        this.out.push(
          `> **Rewound** (${time}): the conversation went back to before turn ${item.turn} (its first ${item.messages} messages).`,
        );
      else this.out.push(`> **Named** (${time}): ${inlineCode(item.name)}`);
      return;
    }
    const { message } = item;
    const time = oneLine(message.time);
    if (message.role === 'user') {
      this.out.push(turn !== undefined ? `## Turn ${turn} · You · ${time}` : `## You · ${time}`);
      for (const block of message.content) {
        if (block.type === 'text') this.block('user', block.text);
        else this.image(block);
      }
    } else if (message.role === 'assistant') {
      const flags = `${message.refusal ? ' · refused' : ''}${message.cancelled ? ' · cancelled' : ''}`;
      this.out.push(`## Assistant · ${time}${flags}`);
      for (const block of message.content) {
        if (block.type === 'text') this.block('assistant', block.text);
        else if (block.type === 'thinking') this.block('thinking', block.thinking);
        else this.call(block);
      }
    } else {
      for (const result of message.content) {
        if (this.results.get(result.call_id) === result) continue;
        this.result(result, `Result without a call (${inlineCode(result.name ?? 'tool')})`);
      }
    }
  }

  write(): string {
    const { doc } = this;
    this.out.push(`# ${oneLine(doc.title)}`);
    const about: Array<[string, string | undefined]> = [
      ['Directory', doc.cwd],
      ['Model', doc.model],
      ['Started', doc.created],
      ['Session file', doc.file],
    ];
    const rows = about.filter((row) => row[1] !== undefined);
    if (rows.length > 0)
      this.out.push(rows.map(([k, v]) => `- ${k}: ${inlineCode(v!)}`).join('\n'));
    for (const warning of doc.warnings) this.out.push(`> ${oneLine(warning)}`);
    let turn = 0;
    const items = (list: readonly ExportItem[]) => {
      for (const item of list) {
        const isUser = item.kind === 'message' && item.message.role === 'user';
        this.item(item, isUser ? ++turn : undefined);
      }
    };
    if (!doc.branches) items(doc.items);
    for (const branch of doc.branches ?? []) {
      const active = branch.active ? ' · active' : '';
      this.out.push(`## Branch ${branch.index}${active}`);
      this.out.push(
        branch.parent === undefined
          ? '*Starts at the beginning of the session.*'
          : `*Leaves branch ${branch.parent} after line ${branch.from} of the session file.*`,
      );
      if (branch.summary) {
        this.out.push(
          `> **Summary of this branch** (${oneLine(branch.summary.by)}, ${oneLine(branch.summary.time)}):`,
        );
        this.block('summary', branch.summary.text);
      }
      items(branch.items);
    }
    return this.out.join('\n\n') + '\n';
  }
}

/**
 * The Markdown of `doc`. `token` (12 hex digits; random when left out) marks the verbatim text
 * blocks; a text that holds it gets another. Contract: never throws; linear in the size.
 */
export function renderMarkdown(doc: ExportDocument, token?: string): string {
  for (let attempt = 0; ; attempt++) {
    const mark =
      attempt === 0 && token !== undefined ? token : nodeCrypto().randomBytes(6).toString('hex');
    try {
      return new MarkdownWriter(doc, mark).write();
    } catch (error) {
      if (!(error instanceof TokenClash)) throw error;
    }
  }
}
