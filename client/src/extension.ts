/** Activation: the log channel, language status items, commands, and restarts on settings / interpreter / trust changes. */
import * as vscode from 'vscode';
import { fixAll, upgradeCheck } from './commands';
import { Controller } from './controller';
import { createLogChannel, logInfo, showLogs } from './logging';
import { onDidChangeInterpreter } from './python';
import { CLIENT_NAME } from './server';
import { needsRestart } from './settings';
import { ServerState, StatusItem, StatusSnapshot } from './status';

/** What the extension exports (used by tests and other extensions). */
export interface HfCacheLintApi {
  state(): ServerState;
  statusText(): string;
  /** The language status items' texts, details and severities. */
  status(): StatusSnapshot;
  restart(): Promise<void>;
}

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<HfCacheLintApi> {
  const channel = createLogChannel(CLIENT_NAME);
  const status = new StatusItem('hfCacheLint.showLogs', 'hfCacheLint.restart');
  const ctl = new Controller(context, channel, status);
  controller = ctl;
  context.subscriptions.push(
    channel,
    status,
    ctl,
    vscode.commands.registerCommand('hfCacheLint.restart', () => ctl.restart('command')),
    vscode.commands.registerCommand('hfCacheLint.showLogs', showLogs),
    vscode.commands.registerCommand('hfCacheLint.fixAll', (uri?: vscode.Uri) => fixAll(uri)),
    vscode.commands.registerCommand('hfCacheLint.upgradeCheck', (version?: unknown) => upgradeCheck(ctl, version)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (needsRestart(e)) {
        ctl.showConfiguredTarget();
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
    status: () => status.snapshot(),
    restart: () => ctl.restart('api'),
  };
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}
