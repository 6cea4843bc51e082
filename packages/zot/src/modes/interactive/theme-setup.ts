// Which theme the TUI starts with, and /theme's way of changing it while it runs.
import type { Terminal, TUI } from '@mariozechner/pi-tui';
import { createTheme, DARK, noColor, type Theme, type ThemeSpec } from '../../tui/theme.js';
import { detectBackground } from './background.js';
import type { ThemeChoice } from './dialogs.js';

export interface PickedTheme {
  /** The one theme object every widget reads its styles from: /theme changes it in place. */
  theme: Theme;
  name: string;
  specs: ThemeSpec[];
  color: boolean;
}

/**
 * The saved choice, else the built-in theme that suits the terminal's background (asked only on
 * the process's own terminal), else the first theme.
 */
export async function pickTheme(
  themes: { themes: ThemeSpec[]; chosen?: string } | undefined,
  env: NodeJS.ProcessEnv,
  terminal: Terminal | undefined,
): Promise<PickedTheme> {
  const specs = themes?.themes ?? [DARK];
  const color = !noColor(env);
  const chosen = specs.find((s) => s.name === themes?.chosen);
  const background =
    !chosen && color && !terminal
      ? await detectBackground(env, process.stdin, process.stdout)
      : undefined;
  const spec = chosen ?? specs.find((s) => s.name === background) ?? specs[0] ?? DARK;
  return { theme: createTheme(spec, color), name: spec.name, specs, color };
}

/** /theme's choice: applying a theme restyles every widget and redraws the whole screen. */
export function themeChoice(
  picked: PickedTheme,
  tui: TUI,
  save: (name: string) => void,
): ThemeChoice {
  let current = picked.name;
  return {
    list: picked.specs,
    current: () => current,
    apply: (next) => {
      current = next.name;
      Object.assign(picked.theme, createTheme(next, picked.color));
      tui.invalidate();
      tui.requestRender(true);
    },
    save,
  };
}
