/** The status bar item: server state and the transformers version the server targets. */
import * as vscode from 'vscode';

export type ServerState = 'starting' | 'running' | 'stopped' | 'disabled' | 'error';

const ICONS: Record<ServerState, string> = {
  starting: '$(sync~spin)',
  running: '$(check)',
  stopped: '$(circle-slash)',
  disabled: '$(circle-slash)',
  error: '$(error)',
};

/** What the server reports about its target (custom notification `hfCacheLint/status`, or serverInfo). */
export interface TargetInfo {
  transformersVersion?: string;
  /** Where the version comes from: "environment", "setting" or "default" (the server's names). */
  versionSource?: string;
  /** The interpreter the server analyses with; null when it runs none (untrusted workspace). */
  interpreter?: string | null;
  /** true when the server was told the workspace is untrusted. */
  restricted?: boolean;
  /** The server's own words: "transformers 4.57.6 (installed in .venv)", or a range and the releases checked. */
  target?: string;
}

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private state: ServerState = 'starting';
  private target: TargetInfo = {};
  private detail = '';
  private fromServer = false;
  private restricted = false;

  constructor(command: string) {
    this.item = vscode.window.createStatusBarItem('hfCacheLint.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'hf-cache-lint';
    this.item.command = command;
    this.render();
    this.item.show();
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

  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const version = this.target.transformersVersion || 'auto';
    const restricted = this.restricted || this.target.restricted === true;
    this.item.text = `${ICONS[this.state]} HF cache: transformers ${version}${restricted ? ' (restricted)' : ''}`;
    const lines = [
      `hf-cache-lint server: ${this.state}${this.detail ? ` (${this.detail})` : ''}`,
      this.target.target
        ? `Target: ${this.target.target}`
        : `Target transformers: ${version}${this.target.versionSource ? ` (${this.target.versionSource})` : ''}`,
      restricted
        ? 'Untrusted workspace: no Python interpreter is run (no version probe, no jedi); the target comes from settings or the default.'
        : `Analysed interpreter: ${this.target.interpreter ?? 'unknown'}`,
      'Click to show the logs.',
    ];
    this.item.tooltip = lines.join('\n');
    this.item.backgroundColor =
      this.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
