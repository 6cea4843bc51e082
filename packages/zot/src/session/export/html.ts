// A session as one self-contained HTML page: inline CSS, no script, nothing fetched. Every piece
// of text comes from the session file and is hostile: it is made terminal-safe (controls and
// reordering characters shown as escapes) and then HTML-escaped, always through `esc`; element
// ids and links are built from indices only. The page's CSP forbids every load but its own
// stylesheet and data: images, so even an escaping mistake could not fetch or run anything.
import type { ToolDetails } from '../../contract/tool-details.js';
import type {
  AssistantMessage,
  ImageBlock,
  ToolCallBlock,
  ToolResultBlock,
  UserMessage,
} from '../../providers/types.js';
import { terminalSafe } from '../../util/terminal-text.js';
import {
  argsSummary,
  resultsByCall,
  type ExportBranch,
  type ExportDocument,
  type ExportItem,
} from './document.js';
import { EXPORT_CSS, exportCsp } from './html-style.js';
import { splitFences } from './fences.js';

export interface HtmlLimits {
  /** Characters of one block shown (tool output, a message's text); the rest is counted. */
  blockChars: number;
  /** Base64 characters of one image embedded as a data: URL. */
  imageChars: number;
  /** Base64 characters of all images together. */
  imagesChars: number;
}

export const HTML_LIMITS: HtmlLimits = {
  blockChars: 256 * 1024,
  imageChars: 4 * 1024 * 1024,
  imagesChars: 32 * 1024 * 1024,
};

/** Raster formats a browser shows as an image and nothing else (no SVG: it is a document). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text or attribute content: controls visible, markup inert. */
export function esc(text: string): string {
  return terminalSafe(text, { multiline: true }).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

class Renderer {
  private imagesLeft: number;
  private readonly results: Map<string, ToolResultBlock>;
  private counter = 0;
  private turns = 0;
  private readonly idOfLine = new Map<number, string>();

  constructor(
    private readonly doc: ExportDocument,
    private readonly limits: HtmlLimits,
  ) {
    this.imagesLeft = limits.imagesChars;
    this.results = resultsByCall(doc.items);
  }

  /** A block's text, cut at the limit with a note saying how much is left out. */
  private bounded(text: string): { text: string; cut: string } {
    if (text.length <= this.limits.blockChars) return { text, cut: '' };
    const more = text.length - this.limits.blockChars;
    return {
      text: text.slice(0, this.limits.blockChars),
      cut: `<p class="cut">… ${more.toLocaleString('en')} more characters not shown (the Markdown export has them all)</p>`,
    };
  }

  /** Model or user text: prose, with fenced code blocks as code. */
  private prose(text: string): string {
    const { text: shown, cut } = this.bounded(text);
    const parts = splitFences(shown).map((part) =>
      part.code
        ? `<pre class="code"><code>${esc(part.text)}</code></pre>`
        : part.text.trim() === ''
          ? ''
          : `<div class="prose">${esc(part.text.replace(/^\n+|\n+$/g, ''))}</div>`,
    );
    return parts.join('') + cut;
  }

  private pre(text: string, className: string): string {
    const { text: shown, cut } = this.bounded(text);
    return `<pre class="${className}">${esc(shown)}</pre>${cut}`;
  }

  private image(block: ImageBlock): string {
    const size = `${block.mime_type}, ${Math.round((block.data.length * 3) / 4 / 1024)} KiB`;
    const skip = (why: string) => `<p class="cut">[image ${esc(size)}: ${why}]</p>`;
    if (!IMAGE_TYPES.has(block.mime_type)) return skip('not a format the page shows');
    if (block.data.length > this.limits.imageChars) return skip('too large to embed');
    if (block.data.length > this.imagesLeft) return skip('over the page’s total for images');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(block.data)) return skip('its data is not base64');
    this.imagesLeft -= block.data.length;
    return `<img class="inline" alt="image (${esc(size)})" src="data:${block.mime_type};base64,${block.data}">`;
  }

  private diffLines(lines: readonly string[]): string {
    const { text, cut } = this.bounded(lines.join('\n'));
    const rows = text.split('\n').map((line) => {
      const kind = line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'ctx';
      return `<span class="${kind}">${esc(line) || ' '}</span>`;
    });
    return `<pre class="diff">${rows.join('')}</pre>${cut}`;
  }

  private details(details: ToolDetails): string {
    switch (details.kind) {
      case 'edit': {
        const lines = details.hunks.flatMap((hunk) => [
          `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`,
          ...hunk.lines,
        ]);
        const cut = details.truncated ? '<p class="cut">the diff was cut at its limit</p>' : '';
        return `<p class="label">${esc(details.path)}: +${details.added} −${details.removed}</p>${this.diffLines(lines)}${cut}`;
      }
      case 'diff':
        return this.diffLines(details.diff.split('\n'));
      case 'bash': {
        const how = details.timed_out
          ? 'timed out'
          : details.aborted
            ? 'aborted'
            : details.signal !== undefined
              ? `killed by ${details.signal}`
              : details.exit_code !== undefined
                ? `exit code ${details.exit_code}`
                : '';
        const saved = details.full_output_path
          ? `; the full output was saved to ${details.full_output_path}`
          : '';
        return how || saved ? `<p class="label">${esc(how + saved)}</p>` : '';
      }
      case 'write':
        return `<p class="label">${esc(`${details.created ? 'created' : 'wrote'} ${details.path} (${details.bytes} bytes)`)}</p>`;
      case 'read': {
        const range =
          details.first_line !== undefined
            ? ` lines ${details.first_line}–${details.last_line ?? details.first_line}`
            : '';
        return `<p class="label">${esc(`${details.path}${range}`)}</p>`;
      }
      case 'table': {
        const head = details.columns.map((c) => `<th>${esc(c)}</th>`).join('');
        const rows = details.rows
          .slice(0, 1000)
          .map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`);
        return `<table class="details"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
      }
    }
  }

  private result(result: ToolResultBlock): string {
    const body = result.content.map((block) =>
      block.type === 'text' ? this.pre(block.text, 'output') : this.image(block),
    );
    const from = result.attribution
      ? `<p class="label">${esc(`from extension ${result.attribution.extension}`)}</p>`
      : '';
    const details = result.details ? this.details(result.details) : '';
    return `<p class="label">${result.is_error ? 'error' : 'result'}</p>${details}${body.join('')}${from}`;
  }

  private toolRow(call: ToolCallBlock): string {
    const result = this.results.get(call.id);
    const status = !result ? 'no result' : result.is_error ? 'error' : 'ok';
    const className = result?.is_error ? 'tool error' : 'tool';
    const args = JSON.stringify(call.args, null, 2);
    return (
      `<details class="${className}"><summary><span class="tool-name">${esc(call.name)}</span> ` +
      `<code class="tool-args">${esc(argsSummary(call.name, call.args))}</code>` +
      `<span class="status">${status}</span></summary>` +
      `<p class="label">arguments</p>${this.pre(args, 'args')}` +
      (result ? this.result(result) : '') +
      `</details>`
    );
  }

  private heading(label: string, time: string, extra = ''): string {
    return `<h2>${label}${extra}<time>${esc(time)}</time></h2>`;
  }

  private user(message: UserMessage, turn: number | undefined, id: string): string {
    const body = message.content.map((block) =>
      block.type === 'text' ? this.prose(block.text) : this.image(block),
    );
    const label = turn !== undefined ? `You · turn ${turn}` : 'You';
    return `<section class="msg user" id="${id}">${this.heading(label, message.time)}${body.join('')}</section>`;
  }

  private assistant(message: AssistantMessage, id: string): string {
    const badges =
      (message.refusal ? '<span class="badge">refused</span>' : '') +
      (message.cancelled ? '<span class="badge">cancelled</span>' : '');
    const body = message.content.map((block) => {
      if (block.type === 'text') return this.prose(block.text);
      if (block.type === 'tool_call') return this.toolRow(block);
      const thought = block.thinking.trim() === '' ? '(not shown by the provider)' : block.thinking;
      return `<details class="thinking"><summary>Thinking</summary>${this.prose(thought)}</details>`;
    });
    return `<section class="msg assistant" id="${id}">${this.heading('Assistant', message.time, badges)}${body.join('')}</section>`;
  }

  private item(item: ExportItem, id: string, turn: number | undefined): string {
    switch (item.kind) {
      case 'message': {
        const { message } = item;
        if (message.role === 'user') return this.user(message, turn, id);
        if (message.role === 'assistant') return this.assistant(message, id);
        // Results are shown under their calls; one no call asked for is shown on its own.
        const orphans = message.content.filter(
          (result) => this.results.get(result.call_id) !== result,
        );
        if (orphans.length === 0) return '';
        const body = orphans.map(
          (result) =>
            `<details class="tool"><summary><span class="tool-name">${esc(result.name ?? 'tool')}</span> result without a call</summary>${this.result(result)}</details>`,
        );
        return `<section class="msg tool" id="${id}">${this.heading('Tool results', message.time)}${body.join('')}</section>`;
      }
      case 'compaction':
        return `<div class="note" id="${id}"><details class="compaction"><summary>${esc(`The conversation was compacted here (${item.time}); the model then saw this summary and the last ${item.kept} messages`)}</summary>${this.prose(item.summary)}</details></div>`;
      case 'merge':
        return `<div class="note" id="${id}"><details class="compaction"><summary>${esc(`Merged from another branch (${item.time}): ${item.label}`)}</summary>${this.prose(item.text)}</details></div>`;
      case 'clear':
        return `<div class="note" id="${id}">${esc(`The transcript was cleared here (${item.time}); the model saw nothing before this point`)}</div>`;
      case 'rewind':
        return `<div class="note" id="${id}">${esc(`The conversation was moved back to before turn ${item.turn} here (${item.time}); the model then saw its first ${item.messages} messages`)}</div>`;
      case 'name':
        return `<div class="note" id="${id}">${esc(`Session named “${item.name}” (${item.time})`)}</div>`;
    }
  }

  private about(): string {
    const rows: Array<[string, string | undefined]> = [
      ['Directory', this.doc.cwd],
      ['Model', this.doc.model],
      ['Started', this.doc.created],
      ['Session file', this.doc.file],
      ['zot', this.doc.zotVersion],
    ];
    const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
    return `<dl class="about">${shown.map(([k, v]) => `<dt>${k}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
  }

  /** Items in order, each with its id (turns numbered on across calls); nav gets the turns. */
  private items(items: readonly ExportItem[], nav: string[]): string[] {
    return items.map((item) => {
      const index = this.counter++;
      const isUser = item.kind === 'message' && item.message.role === 'user';
      const turn = isUser ? ++this.turns : undefined;
      const id = turn !== undefined ? `turn-${turn}` : `item-${index}`;
      if (item.line !== undefined) this.idOfLine.set(item.line, id);
      if (turn !== undefined && item.kind === 'message' && item.message.role === 'user') {
        const first = item.message.content.find((block) => block.type === 'text');
        const line = (first?.type === 'text' ? first.text : '[image]').replace(/\s+/g, ' ').trim();
        const short = line.length > 80 ? `${line.slice(0, 79)}…` : line || '(empty)';
        nav.push(`<li><a href="#${id}">${esc(short)}</a></li>`);
      }
      return this.item(item, id, turn);
    });
  }

  /** A session with branches: each branch in the order they began, linked to where it left. */
  private branches(branches: readonly ExportBranch[]): { nav: string; body: string } {
    const nav: string[] = [];
    const body: string[] = [];
    for (const branch of branches) {
      const turns: string[] = [];
      const items = this.items(branch.items, turns);
      const active = branch.active ? ' <span class="badge">active</span>' : '';
      const from =
        branch.parent === undefined
          ? 'starts at the beginning of the session'
          : `leaves <a href="#branch-${branch.parent}">branch ${branch.parent}</a>` +
            (branch.from !== undefined && this.idOfLine.has(branch.from)
              ? ` after <a href="#${this.idOfLine.get(branch.from)!}">this entry</a>`
              : '');
      const summary = branch.summary
        ? `<div class="note"><details class="compaction"><summary>${esc(`Summary of this branch (${branch.summary.by}, ${branch.summary.time})`)}</summary>${this.prose(branch.summary.text)}</details></div>`
        : '';
      body.push(
        `<section class="branch" id="branch-${branch.index}"><h2 class="branch-title">Branch ${branch.index}${active}</h2>` +
          `<p class="label">${from}</p>${summary}${items.join('\n')}</section>`,
      );
      nav.push(
        `<li><a href="#branch-${branch.index}">Branch ${branch.index}</a>${active}<ol>${turns.join('')}</ol></li>`,
      );
    }
    return {
      nav: `<strong>Branches</strong><ol class="branches">${nav.join('')}</ol>`,
      body: body.join('\n'),
    };
  }

  page(): string {
    let nav: string;
    let body: string;
    if (this.doc.branches) ({ nav, body } = this.branches(this.doc.branches));
    else {
      const turns: string[] = [];
      body = this.items(this.doc.items, turns).join('\n');
      nav = `<strong>Turns</strong><ol>${turns.join('')}</ol>`;
    }
    const warnings =
      this.doc.warnings.length > 0
        ? `<div class="warnings">${this.doc.warnings.map((w) => `<p>${esc(w)}</p>`).join('')}</div>`
        : '';
    return [
      '<!DOCTYPE html>',
      '<html lang="en"><head><meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="${exportCsp()}">`,
      '<meta name="referrer" content="no-referrer">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      '<meta name="generator" content="zot export">',
      `<title>${esc(this.doc.title)}</title>`,
      `<style>${EXPORT_CSS}</style></head>`,
      '<body><div class="page">',
      `<nav class="turns" aria-label="Turns">${nav}</nav>`,
      `<main><header><h1>${esc(this.doc.title)}</h1>${this.about()}</header>${warnings}`,
      body,
      '</main></div></body></html>',
      '',
    ].join('\n');
  }
}

/** The page for `doc`. Contract: never throws; linear in the document's size. */
export function renderHtml(doc: ExportDocument, limits: HtmlLimits = HTML_LIMITS): string {
  return new Renderer(doc, limits).page();
}
