/** Starts, stops and restarts the language client; keeps the status item in step with it. */
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { logError, logInfo } from './logging';
import { resolveInterpreters } from './python';
import { createClient } from './server';
import { configuredVersion, isEnabled, serverSettings } from './settings';
import { ServerState, StatusItem, TargetInfo } from './status';

/** Server notification with the target it resolved: `{transformersVersion, versionSource, target, ...}`. */
export const STATUS_NOTIFICATION = 'hfCacheLint/status';
const RESTART_DELAY_MS = 300;

export class Controller implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  current: ServerState = 'stopped';

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly channel: vscode.LogOutputChannel,
    private readonly status: StatusItem,
  ) {}

  /** Runs one of the server's `workspace/executeCommand` commands (undefined when no server is running). */
  async executeServerCommand<T>(command: string, args: unknown[]): Promise<T | undefined> {
    if (!this.client || this.current !== 'running') {
      return undefined;
    }
    return (await this.client.sendRequest('workspace/executeCommand', { command, arguments: args })) as T;
  }

  /** Stops and starts the server; calls are serialised so two restarts never overlap. */
  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(async () => {
      try {
        logInfo(`(Re)starting the server: ${reason}`);
        await this.stop();
        await this.start();
      } catch (error) {
        // Keep the queue usable: a failed restart must not block the next one.
        this.setState('error', 'restart failed; see the logs');
        logError('Restart failed', error);
      }
    });
    return this.queue;
  }

  /** Restart after a short quiet period (settings edits arrive in bursts). */
  restartSoon(reason: string): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.restart(reason), RESTART_DELAY_MS);
  }

  private setState(state: ServerState, detail = ''): void {
    this.current = state;
    this.status.setState(state, detail);
  }

  /** Show the configured target at once (a settings change is visible before the restart completes). */
  showConfiguredTarget(): void {
    const configured = configuredVersion(vscode.workspace.workspaceFolders?.[0]?.uri);
    this.status.resetTarget(configured ? { transformersVersion: configured, versionSource: 'setting' } : {});
  }

  private async start(): Promise<void> {
    const scope = vscode.workspace.workspaceFolders?.[0]?.uri;
    this.showConfiguredTarget();
    this.status.setRestricted(!vscode.workspace.isTrusted);
    if (!isEnabled(scope)) {
      this.setState('disabled');
      return;
    }
    this.setState('starting');
    const interpreters = await resolveInterpreters(scope);
    if (!interpreters.runnerVersion) {
      this.setState('error', 'no Python >= 3.10 to run the server');
      logError(`Cannot run the server: neither ${interpreters.runner} nor python3 is Python >= 3.10`);
      return;
    }
    const client = createClient(
      this.context.extensionPath,
      interpreters,
      serverSettings(scope, interpreters.analysed),
      this.channel,
    );
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Starting) {
        this.setState('starting');
      } else if (this.current !== 'error') {
        this.setState('stopped');
      }
    });
    // Registered before start so a report sent right after `initialized` is not missed.
    client.onNotification(STATUS_NOTIFICATION, (info: TargetInfo) => this.status.setTarget(info, true));
    this.client = client;
    try {
      await client.start();
      logInfo(`Server ${client.initializeResult?.serverInfo?.version ?? ''} running`);
      this.setState('running', `Python ${interpreters.runnerVersion}`);
    } catch (error) {
      this.setState('error', 'failed to start; see the logs');
      logError('Server failed to start', error);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.dispose(2000);
      } catch (error) {
        logError('Error while stopping the server', error);
      }
    }
    this.setState('stopped');
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
