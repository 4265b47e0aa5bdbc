/**
 * The language status items (the `{}` beside "Python" in the status bar), as Ruff's and Pylance's extensions
 * have them: shown only for Python documents and notebook cells, never a ✓ beside open errors.
 *
 * - *target*: the transformers version the findings are for and where it comes from; click: Show Logs.
 * - *problems*: this file's hf-cache-lint findings by severity (Warning/Error colour when it has such) and the
 *   server's state; click: Restart Server.
 */
import * as vscode from 'vscode';

export type ServerState = 'starting' | 'running' | 'stopped' | 'disabled' | 'error';

/** The Python documents the items are shown for (cells of notebooks are `python` documents too). */
export const PYTHON_SELECTOR: vscode.DocumentSelector = [{ language: 'python' }];
const SOURCE = 'hf-cache-lint';

/** What the server reports about its target (custom notification `hfCacheLint/status`, or serverInfo). */
export interface TargetInfo {
  transformersVersion?: string;
  /** Where the version comes from: "environment", "setting" or "default" (the server's names). */
  versionSource?: string;
  /**
   * A sentence the server may send on where the target came from (e.g. a requirements file and its range);
   * shown as is in place of the client's own wording for `versionSource`.
   */
  versionDetail?: string;
  /** The interpreter the server analyses with; null when it runs none (untrusted workspace). */
  interpreter?: string | null;
  /** true when the server was told the workspace is untrusted. */
  restricted?: boolean;
  /** The server's own words: "transformers 4.57.6 (installed in .venv)", or a range and the releases checked. */
  target?: string;
}

// Short: the language status hover gives an item one line (the tooltip of the item has the long form).
const SOURCES: Record<string, string> = {
  environment: 'installed',
  setting: 'from settings',
  default: 'newest known',
};
const SOURCES_LONG: Record<string, string> = {
  environment: 'the version installed in the analysed interpreter',
  setting: 'from the hfCacheLint.transformersVersion setting (or [tool.hf-cache-lint] in pyproject.toml)',
  default: 'the newest known: no transformers in the analysed interpreter and no setting',
};

/** Counts of one document's findings by severity. */
export interface Counts {
  error: number;
  warning: number;
  info: number;
  hint: number;
}

export function countsOf(diagnostics: readonly vscode.Diagnostic[]): Counts {
  const counts: Counts = { error: 0, warning: 0, info: 0, hint: 0 };
  for (const d of diagnostics) {
    if (d.source !== SOURCE) continue;
    const key = (['error', 'warning', 'info', 'hint'] as const)[d.severity];
    counts[key] += 1;
  }
  return counts;
}

/** "1 error, 2 hints" or "no problems": every severity with findings, most severe first. */
export function describeCounts(c: Counts): string {
  const parts: string[] = [];
  const add = (n: number, one: string, many: string): void => {
    if (n) parts.push(`${n} ${n === 1 ? one : many}`);
  };
  add(c.error, 'error', 'errors');
  add(c.warning, 'warning', 'warnings');
  add(c.info, 'info', 'infos');
  add(c.hint, 'hint', 'hints');
  return parts.length ? parts.join(', ') : 'no problems';
}

/** What the items show, as plain data (the extension's API hands it to tests). */
export interface StatusSnapshot {
  target: { text: string; detail: string; severity: string };
  problems: { text: string; detail: string; severity: string };
}

const SEVERITY_NAMES = ['information', 'warning', 'error'];

export class StatusItem implements vscode.Disposable {
  private readonly targetItem: vscode.LanguageStatusItem;
  private readonly problemsItem: vscode.LanguageStatusItem;
  private readonly subscriptions: vscode.Disposable[] = [];
  private state: ServerState = 'starting';
  private target: TargetInfo = {};
  private detail = '';
  private fromServer = false;
  private restricted = false;

  constructor(showLogsCommand: string, restartCommand: string) {
    this.targetItem = vscode.languages.createLanguageStatusItem('hfCacheLint.target', PYTHON_SELECTOR);
    this.targetItem.name = 'hf-cache-lint target';
    this.targetItem.command = { title: 'Show Logs', command: showLogsCommand };
    this.problemsItem = vscode.languages.createLanguageStatusItem('hfCacheLint.problems', PYTHON_SELECTOR);
    this.problemsItem.name = 'hf-cache-lint';
    this.problemsItem.command = { title: 'Restart Server', command: restartCommand };
    this.subscriptions.push(
      vscode.languages.onDidChangeDiagnostics(() => this.render()),
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
    );
    this.render();
  }

  setState(state: ServerState, detail = ''): void {
    this.state = state;
    this.detail = detail;
    this.render();
  }

  /** A guess made by the client (before the server reports) never overrides what the server reported. */
  setTarget(target: TargetInfo, fromServer = false): void {
    if (this.fromServer && !fromServer) {
      return;
    }
    this.fromServer ||= fromServer;
    this.target = { ...target };
    this.render();
  }

  /** Untrusted workspace (restricted mode): the server runs no interpreter; say so. */
  setRestricted(restricted: boolean): void {
    this.restricted = restricted;
    this.render();
  }

  /** Forget what the last server reported (on restart). */
  resetTarget(target: TargetInfo): void {
    this.fromServer = false;
    this.setTarget(target);
  }

  /** Both items' texts on one line (what tests and the API read). */
  get text(): string {
    return `${this.targetItem.text} | ${this.problemsItem.text}`;
  }

  snapshot(): StatusSnapshot {
    const plain = (item: vscode.LanguageStatusItem): StatusSnapshot['target'] => ({
      text: item.text,
      detail: item.detail ?? '',
      severity: SEVERITY_NAMES[item.severity] ?? String(item.severity),
    });
    return { target: plain(this.targetItem), problems: plain(this.problemsItem) };
  }

  private render(): void {
    const version = this.target.transformersVersion || 'auto';
    const restricted = this.restricted || this.target.restricted === true;
    this.targetItem.text = `transformers ${version}${restricted ? ' (restricted)' : ''}`;
    const known = this.target.versionSource ?? '';
    // The server's own sentence ("transformers 4.57.6 (installed in .venv)", a range and the releases
    // checked) wins over the client's wording of `versionSource`.
    const said = this.target.target || this.target.versionDetail;
    const source = said || (known ? SOURCES[known] ?? known : '');
    this.targetItem.detail = `hf-cache-lint target${source ? `, ${source}` : ''}`;
    const interpreter = restricted
      ? 'Untrusted workspace: no Python interpreter is run.'
      : this.target.interpreter
        ? `Analysed interpreter: ${this.target.interpreter}.`
        : '';
    this.targetItem.accessibilityInformation = {
      label: [
        `hf-cache-lint checks against transformers ${version}`,
        said || (known ? SOURCES_LONG[known] ?? known : ''),
        interpreter,
      ].filter((part) => part).join('. '),
    };

    const problems = this.problemsItem;
    problems.busy = this.state === 'starting';
    if (this.state !== 'running') {
      const said: Record<ServerState, string> = {
        starting: 'hf-cache-lint starting',
        running: '',
        stopped: 'hf-cache-lint stopped',
        disabled: 'hf-cache-lint disabled',
        error: 'hf-cache-lint failed',
      };
      problems.text = this.state === 'error' ? `$(error) ${said.error}` : said[this.state];
      problems.detail = this.detail || (this.state === 'disabled' ? 'hfCacheLint.enable is off' : '');
      problems.severity =
        this.state === 'error' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
      return;
    }
    const document = vscode.window.activeTextEditor?.document;
    const counts = countsOf(document ? vscode.languages.getDiagnostics(document.uri) : []);
    problems.text = `hf-cache-lint: ${describeCounts(counts)}`;
    problems.detail = `in this file; server running${this.detail ? ` (${this.detail})` : ''}`;
    problems.severity = counts.error
      ? vscode.LanguageStatusSeverity.Error
      : counts.warning
        ? vscode.LanguageStatusSeverity.Warning
        : vscode.LanguageStatusSeverity.Information;
  }

  dispose(): void {
    this.targetItem.dispose();
    this.problemsItem.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
