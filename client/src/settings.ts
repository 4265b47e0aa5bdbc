/** The `hfCacheLint.*` settings: reading them, the camelCase shape sent to the server, and trust rules. */
import * as vscode from 'vscode';

export const SECTION = 'hfCacheLint';

export type RunMode = 'onType' | 'onSave';
export type Level = 'error' | 'warning' | 'info' | 'hint';

/**
 * What the server receives, in initializationOptions and as the `hfCacheLint` configuration section.
 * Only the keys the user set are sent (plus the resolved interpreter): the server layers these over
 * `[tool.hf-cache-lint]` in pyproject.toml, and an editor default must not hide a pyproject value.
 */
export interface ServerSettings {
  /** The interpreter of the ANALYSED environment (not the one running the server); absent when untrusted. */
  interpreter?: string;
  /** false in an untrusted workspace: the server then runs no interpreter at all. Only the client sets it. */
  workspaceTrusted: boolean;
  /** Unset means auto: the transformers installed in `interpreter`, else the newest known. */
  transformersVersion?: string;
  run?: RunMode;
  debounceMs?: number;
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  severity?: Record<string, Level>;
  /** Extra import roots, relative to the workspace folder (the server drops folders outside it). */
  extraPaths?: string[];
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

/** Whether the user set `key` anywhere (user, workspace, folder, or per language). */
function isSet(c: vscode.WorkspaceConfiguration, key: string): boolean {
  const i = c.inspect(key);
  return [
    i?.globalValue,
    i?.workspaceValue,
    i?.workspaceFolderValue,
    i?.globalLanguageValue,
    i?.workspaceLanguageValue,
    i?.workspaceFolderLanguageValue,
  ].some((v) => v !== undefined);
}

export function isEnabled(scope?: vscode.ConfigurationScope): boolean {
  return config(scope).get<boolean>('enable') ?? true;
}

/** The version the user configured, or '' for auto. */
export function configuredVersion(scope?: vscode.ConfigurationScope): string {
  return (config(scope).get<string>('transformersVersion') ?? '').trim();
}

/** Settings for `scope` as the server reads them; `interpreter` is the resolved analysed interpreter. */
export function serverSettings(
  scope: vscode.ConfigurationScope | undefined,
  interpreter: string | undefined,
): ServerSettings {
  const c = config(scope);
  const out: ServerSettings = { workspaceTrusted: vscode.workspace.isTrusted };
  if (interpreter && vscode.workspace.isTrusted) {
    out.interpreter = interpreter;
  }
  if (configuredVersion(scope)) {
    out.transformersVersion = configuredVersion(scope);
  }
  if (isSet(c, 'run')) {
    out.run = c.get<string>('run') === 'onSave' ? 'onSave' : 'onType';
  }
  if (isSet(c, 'debounceMs')) {
    out.debounceMs = Math.max(0, Math.trunc(c.get<number>('debounceMs') ?? 150));
  }
  if (isSet(c, 'select')) {
    out.select = strings(c.get('select'));
  }
  if (isSet(c, 'extendSelect')) {
    out.extendSelect = strings(c.get('extendSelect'));
  }
  if (isSet(c, 'ignore')) {
    out.ignore = strings(c.get('ignore'));
  }
  if (isSet(c, 'severity')) {
    out.severity = severities(c.get('severity'));
  }
  if (isSet(c, 'extraPaths')) {
    out.extraPaths = strings(c.get('extraPaths'));
  }
  return out;
}

/** Whether a settings change needs a server restart (trace changes are applied by languageclient itself). */
export function needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  const keys = [
    'enable', 'interpreter', 'transformersVersion', 'run', 'debounceMs', 'select', 'extendSelect', 'ignore', 'severity',
    'extraPaths',
  ];
  return keys.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}
