// The export page's stylesheet, and the Content-Security-Policy that allows exactly it: the page
// loads nothing from anywhere (no fonts, scripts, frames or remote images; images are data: URLs).
import { nodeCrypto } from '../../util/builtins.js';

export const EXPORT_CSS = `
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #fdfdfc; --muted: #6a6f75; --line: #d8dadc;
  --user: #eef4ff; --assistant: #ffffff; --tool: #f6f6f4; --add: #e4f7e6; --add-fg: #17641f;
  --del: #fde8e8; --del-fg: #a11d1d; --hunk: #5b4bb7; --note: #fff8e1; --err: #b3261e; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e6e3; --bg: #17181a; --muted: #9aa0a6; --line: #34373b; --user: #1d2736;
    --assistant: #1e1f22; --tool: #232528; --add: #15301a; --add-fg: #8fdc98; --del: #3a1717;
    --del-fg: #f19a9a; --hunk: #b3a6ff; --note: #33301f; --err: #f2a29c; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.page { display: flex; gap: 24px; max-width: 1200px; margin: 0 auto; padding: 24px; }
nav.turns { flex: 0 0 240px; position: sticky; top: 16px; align-self: flex-start;
  max-height: calc(100vh - 32px); overflow: auto; font-size: 13px; }
nav.turns ol { padding-left: 22px; margin: 4px 0; }
nav.turns a { color: inherit; text-decoration: none; overflow-wrap: anywhere; }
nav.turns a:hover { text-decoration: underline; }
main { flex: 1 1 auto; min-width: 0; }
header h1 { font-size: 20px; margin: 0 0 6px; overflow-wrap: anywhere; }
dl.about { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 20px;
  color: var(--muted); font-size: 13px; }
dl.about dd { margin: 0; overflow-wrap: anywhere; }
section.msg { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 12px 0; }
section.user { background: var(--user); }
section.assistant { background: var(--assistant); }
section.tool { background: var(--tool); }
section.msg > h2 { font-size: 13px; margin: 0 0 6px; color: var(--muted); font-weight: 600; }
section.msg > h2 time { font-weight: normal; margin-left: 8px; }
.badge { font-size: 12px; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; margin-left: 6px; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0; padding: 8px 10px;
  background: var(--tool); border: 1px solid var(--line); border-radius: 6px;
  font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
details { margin: 6px 0; }
details > summary { cursor: pointer; overflow-wrap: anywhere; }
details.tool { border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; background: var(--tool); }
details.tool.error > summary .status { color: var(--err); }
.tool-name { font-weight: 600; }
.tool-args { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--muted); }
.status { font-size: 12px; margin-left: 6px; color: var(--muted); }
details.thinking > summary, details.compaction > summary { color: var(--muted); font-style: italic; }
details.thinking .prose { color: var(--muted); }
.label { font-size: 12px; color: var(--muted); margin: 8px 0 0; }
.diff .add { background: var(--add); color: var(--add-fg); display: block; }
.diff .del { background: var(--del); color: var(--del-fg); display: block; }
.diff .hunk { color: var(--hunk); display: block; }
.diff .ctx { display: block; }
.note { background: var(--note); border: 1px dashed var(--line); border-radius: 8px;
  padding: 6px 12px; margin: 12px 0; font-size: 14px; }
.cut { color: var(--muted); font-style: italic; font-size: 13px; }
img.inline { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
table.details { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
table.details th, table.details td { border: 1px solid var(--line); padding: 2px 8px; text-align: left; }
.warnings { color: var(--err); font-size: 13px; }
section.branch { border-left: 3px solid var(--line); padding-left: 14px; margin: 28px 0; }
h2.branch-title { font-size: 17px; margin: 0 0 4px; }
nav.turns ol.branches > li { margin-bottom: 6px; }
@media (max-width: 800px) { .page { display: block; } nav.turns { position: static; max-height: none; } }
`;

let hash: string | undefined;

/** The page's policy: only this stylesheet and data: images; no script runs, nothing is fetched. */
export function exportCsp(): string {
  hash ??= nodeCrypto().createHash('sha256').update(EXPORT_CSS).digest('base64');
  return [
    "default-src 'none'",
    `style-src 'sha256-${hash}'`,
    'img-src data:',
    "script-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
