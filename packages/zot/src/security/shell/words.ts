// The value of a shell word after quote removal, when it can be known before the command runs.
import type { ShellNode } from './parser.js';

/**
 * A word of a command line. `static` words are known exactly (quotes removed); `dynamic` ones
 * depend on the run (an expansion, a substitution, a glob or brace pattern) and may become any
 * number of words with any text.
 */
export type Word = { kind: 'static'; value: string } | { kind: 'dynamic'; source: string };

export const dynamic = (node: ShellNode): Word => ({ kind: 'dynamic', source: node.text });

// Outside quotes, what makes bash do more than remove quotes: if the parser calls a word plain
// while its text holds one of these, the parse and bash may disagree, so the word is dynamic.
const ACTIVE = /[$`()<>;&|\n\r]|[*?[]/;
/** A brace expansion (`{a,b}`, `{1..3}`) turns one word into several. */
const BRACES = /\{[^]*?(,|\.\.)[^]*?\}/;

/** Backslash removal outside quotes: `\x` is x, a backslash-newline disappears. */
function unescapeBare(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) return out; // a trailing backslash is dropped by bash too
      if (next !== '\n') out += next;
      i++;
      continue;
    }
    if (ACTIVE.test(c)) return undefined;
    out += c;
  }
  return out;
}

/** Inside double quotes only `\$`, `` \` ``, `\"`, `\\` and backslash-newline are escapes. */
function unescapeQuoted(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '$' || c === '`') return undefined;
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== undefined && '$`"\\\n'.includes(next)) {
        if (next !== '\n') out += next;
        i++;
        continue;
      }
    }
    out += c;
  }
  return out;
}

function staticText(node: ShellNode): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      return BRACES.test(node.text) ? undefined : unescapeBare(node.text);
    case 'raw_string':
      return node.text.length >= 2 ? node.text.slice(1, -1) : undefined;
    case 'string': {
      let out = '';
      for (let i = 0; i < node.childCount; i++) {
        const child = node.child(i)!;
        if (!child.isNamed) continue; // the quotes
        if (child.type !== 'string_content') return undefined;
        const part = unescapeQuoted(child.text);
        if (part === undefined) return undefined;
        out += part;
      }
      // `string_content` leaves out nothing but text: the quotes and what is between them
      return node.text.startsWith('"') && node.text.endsWith('"') ? out : undefined;
    }
    case 'concatenation': {
      if (BRACES.test(node.text)) return undefined;
      let out = '';
      for (let i = 0; i < node.childCount; i++) {
        const part = staticText(node.child(i)!);
        if (part === undefined) return undefined;
        out += part;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** The word a node stands for. Contract: never throws. */
export function wordOf(node: ShellNode): Word {
  const value = staticText(node);
  return value === undefined ? dynamic(node) : { kind: 'static', value };
}

/** The text of a static word, else undefined. */
export const textOf = (word: Word | undefined): string | undefined =>
  word?.kind === 'static' ? word.value : undefined;

/** A word as the user would write it, for messages. */
export const showWord = (word: Word): string => (word.kind === 'static' ? word.value : word.source);
