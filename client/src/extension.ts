/** Activation: the log channel, status item, commands, and restarts on settings / interpreter / trust changes. */
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { fixAll } from './commands';
import { createLogChannel, logError, logInfo, showLogs } from './logging';
import { installedTransformers, Interpreters, onDidChangeInterpreter, resolveInterpreters } from './python';
import { createClient, CLIENT_NAME } from './server';
import { configuredVersion, isEnabled, needsRestart, serverSettings } from './settings';
import { ServerState, StatusItem, TargetInfo } from './status';

const STATUS_NOTIFICATION = 'hfCacheLint/status';
const RESTART_DELAY_MS = 300;

/** What the extension exports (used by tests and other extensions). */
export interface HfCacheLintApi {
  state(): ServerState;
  statusText(): string;
  restart(): Promise<void>;
}

class Controller implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  current: ServerState = 'stopped';

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly channel: vscode.LogOutputChannel,
    private readonly status: StatusItem,
  ) {}

  /** Stops and starts the server; calls are serialised so two restarts never overlap. */
  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(async () => {
      logInfo(`(Re)starting the server: ${reason}`);
      await this.stop();
      await this.start();
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

  private async start(): Promise<void> {
    const scope = vscode.workspace.workspaceFolders?.[0]?.uri;
    const configured = configuredVersion(scope);
    this.status.resetTarget(configured ? { transformersVersion: configured, versionSource: 'setting' } : {});
    if (!isEnabled(scope)) {
      this.setState('disabled');
      return;
    }
    this.setState('starting');
    const interpreters = await resolveInterpreters(scope);
    if (!interpreters.runnerVersion) {
      this.setState('error', 'no Python >= 3.10 to run the server');
      logError(`Cannot run the server: neither ${interpreters.analysed} nor python3 is Python >= 3.10`);
      return;
    }
    void this.guessTarget(interpreters);
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

  /**
   * Until the server reports its target (notification `hfCacheLint/status`), show what it will pick: the
   * transformers installed in the analysed environment, else the setting, else "auto" (the newest known).
   */
  private async guessTarget(interpreters: Interpreters): Promise<void> {
    const installed = await installedTransformers(interpreters.analysed);
    if (installed) {
      this.status.setTarget({ transformersVersion: installed, versionSource: 'environment' });
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

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<HfCacheLintApi> {
  const channel = createLogChannel(CLIENT_NAME);
  const status = new StatusItem('hfCacheLint.showLogs');
  const ctl = new Controller(context, channel, status);
  controller = ctl;
  context.subscriptions.push(
    channel,
    status,
    ctl,
    vscode.commands.registerCommand('hfCacheLint.restart', () => ctl.restart('command')),
    vscode.commands.registerCommand('hfCacheLint.showLogs', showLogs),
    vscode.commands.registerCommand('hfCacheLint.fixAll', (uri?: vscode.Uri) => fixAll(uri)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (needsRestart(e)) {
        ctl.restartSoon('settings changed');
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => ctl.restartSoon('workspace trusted')),
    await onDidChangeInterpreter(() => ctl.restartSoon('interpreter changed')),
  );
  logInfo(`hf-cache-lint ${String(context.extension.packageJSON.version)} activating`);
  await ctl.restart('activation');
  return {
    state: () => ctl.current,
    statusText: () => status.text,
    restart: () => ctl.restart('api'),
  };
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}
