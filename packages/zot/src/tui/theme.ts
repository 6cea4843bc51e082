// Colour roles for every widget: a widget asks for `theme.error(text)`, never for a colour.
// Themes (built-in dark and light; theme.json files later) map roles to colours; NO_COLOR keeps
// the attributes that carry meaning without colour (bold, dim, inverse) and drops every colour.

/** Styles a piece of text; never changes its visible width. */
export type Style = (text: string) => string;

/** The named roles a theme colours. */
export const COLOR_ROLES = [
  'text',
  'muted',
  'dim',
  'accent',
  'error',
  'warning',
  'success',
  'info',
  'border',
  'selected',
  'userMessage',
  'thinking',
  'toolName',
  'toolPreview',
  'toolOutput',
  'extensionName',
  'diffAdded',
  'diffRemoved',
  'diffContext',
  'lineNumber',
  'heading',
  'link',
  'linkUrl',
  'code',
  'codeBlockBorder',
  'quote',
  'listBullet',
  'statusBar',
] as const;
export type ColorRole = (typeof COLOR_ROLES)[number];

/** A colour: `#rrggbb`, or a 256-colour palette index. */
export type Color = string | number;

export interface ThemeSpec {
  name: string;
  colors: Record<ColorRole, Color>;
}

export type Theme = Record<ColorRole, Style> & {
  name: string;
  /** False under NO_COLOR: widgets then mark meaning with symbols and attributes only. */
  color: boolean;
  bold: Style;
  dim: Style;
  italic: Style;
  underline: Style;
  strikethrough: Style;
  inverse: Style;
};

export const DARK: ThemeSpec = {
  name: 'dark',
  colors: {
    text: 252,
    muted: 245,
    dim: 240,
    accent: '#7aa2f7',
    error: '#f7768e',
    warning: '#e0af68',
    success: '#9ece6a',
    info: '#7dcfff',
    border: 240,
    selected: '#7aa2f7',
    userMessage: 255,
    thinking: 243,
    toolName: '#bb9af7',
    toolPreview: 250,
    toolOutput: 246,
    extensionName: '#73daca',
    diffAdded: '#9ece6a',
    diffRemoved: '#f7768e',
    diffContext: 244,
    lineNumber: 240,
    heading: '#7aa2f7',
    link: '#7dcfff',
    linkUrl: 243,
    code: '#e0af68',
    codeBlockBorder: 240,
    quote: 248,
    listBullet: '#7aa2f7',
    statusBar: 245,
  },
};

export const LIGHT: ThemeSpec = {
  name: 'light',
  colors: {
    text: 235,
    muted: 242,
    dim: 247,
    accent: '#2e59c9',
    error: '#c4314b',
    warning: '#9a6700',
    success: '#2f7d32',
    info: '#0b7285',
    border: 248,
    selected: '#2e59c9',
    userMessage: 232,
    thinking: 244,
    toolName: '#7b3fc4',
    toolPreview: 238,
    toolOutput: 240,
    extensionName: '#0b7285',
    diffAdded: '#2f7d32',
    diffRemoved: '#c4314b',
    diffContext: 243,
    lineNumber: 247,
    heading: '#2e59c9',
    link: '#0b7285',
    linkUrl: 244,
    code: '#9a3412',
    codeBlockBorder: 248,
    quote: 240,
    listBullet: '#2e59c9',
    statusBar: 242,
  },
};

function foreground(color: Color): string {
  if (typeof color === 'number') return `\x1b[38;5;${color}m`;
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!match) return '';
  const [r, g, b] = match.slice(1).map((hex) => parseInt(hex, 16));
  return `\x1b[38;2;${r};${g};${b}m`;
}

/** Wraps text in `open`/`close`, re-opening after inner resets so nested styles survive. */
function wrap(open: string, close: string): Style {
  if (open === '') return (text) => text;
  return (text) => open + text.split(close).join(close + open) + close;
}

/** Whether colour is off for this process (https://no-color.org: set and non-empty). */
export function noColor(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NO_COLOR ?? '') !== '';
}

/** Builds the styles of `spec`; with `color` false only attributes remain. */
export function createTheme(spec: ThemeSpec = DARK, color = !noColor()): Theme {
  const styles = {} as Record<ColorRole, Style>;
  for (const role of COLOR_ROLES) {
    styles[role] = color ? wrap(foreground(spec.colors[role]), '\x1b[39m') : (text) => text;
  }
  return {
    ...styles,
    name: spec.name,
    color,
    bold: wrap('\x1b[1m', '\x1b[22m'),
    dim: wrap('\x1b[2m', '\x1b[22m'),
    italic: wrap('\x1b[3m', '\x1b[23m'),
    underline: wrap('\x1b[4m', '\x1b[24m'),
    strikethrough: wrap('\x1b[9m', '\x1b[29m'),
    inverse: wrap('\x1b[7m', '\x1b[27m'),
  };
}
