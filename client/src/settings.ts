/** The `hfCacheLint.*` settings: reading them, the camelCase shape sent to the server, and trust rules. */
import * as vscode from 'vscode';

export const SECTION = 'hfCacheLint';

export type RunMode = 'onType' | 'onSave';
export type Level = 'error' | 'warning' | 'info' | 'hint';

/** What the server receives, in initializationOptions and as the `hfCacheLint` configuration section. */
export interface ServerSettings {
  enable: boolean;
  /** The interpreter of the ANALYSED environment (not the one running the server). */
  interpreter: string;
  /** Empty means auto: the transformers installed in `interpreter`, else the newest known. */
  transformersVersion: string;
  run: RunMode;
  debounceMs: number;
  select: string[];
  ignore: string[];
  severity: Record<string, Level>;
}

const LEVELS: readonly Level[] = ['error', 'warning', 'info', 'hint'];

function config(scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String).map((s) => s.trim()).filter((s) => s.length > 0) : [];
}

function severities(value: unknown): Record<string, Level> {
  const out: Record<string, Level> = {};
  if (value && typeof value === 'object') {
    for (const [code, level] of Object.entries(value as Record<string, unknown>)) {
      const normalised = String(level).toLowerCase();
      const mapped = normalised === 'information' ? 'info' : normalised;
      if ((LEVELS as readonly string[]).includes(mapped)) {
        out[code.toUpperCase()] = mapped as Level;
      }
    }
  }
  return out;
}

/**
 * The `interpreter` setting as this workspace may use it. In an untrusted workspace only the user-level
 * value counts: a workspace could otherwise name a binary of its own for us to run.
 */
export function interpreterSetting(scope?: vscode.ConfigurationScope): string {
  const inspected = config(scope).inspect<string>('interpreter');
  if (!vscode.workspace.isTrusted) {
    return (inspected?.globalValue ?? '').trim();
  }
  return (config(scope).get<string>('interpreter') ?? '').trim();
}

/** Settings for `scope`, with `interpreter` replaced by the resolved analysed interpreter when given. */
export function readSettings(scope?: vscode.ConfigurationScope, interpreter?: string): ServerSettings {
  const c = config(scope);
  const run = c.get<string>('run');
  return {
    enable: c.get<boolean>('enable') ?? true,
    interpreter: interpreter ?? interpreterSetting(scope),
    transformersVersion: (c.get<string>('transformersVersion') ?? '').trim(),
    run: run === 'onSave' ? 'onSave' : 'onType',
    debounceMs: Math.max(0, Math.trunc(c.get<number>('debounceMs') ?? 150)),
    select: strings(c.get('select')),
    ignore: strings(c.get('ignore')),
    severity: severities(c.get('severity')),
  };
}

/** Whether a settings change needs a server restart (trace changes are applied by languageclient itself). */
export function needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  const keys = ['enable', 'interpreter', 'transformersVersion', 'run', 'debounceMs', 'select', 'ignore', 'severity'];
  return keys.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}
