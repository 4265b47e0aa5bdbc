/** Builds the language client that runs the bundled server (client/launch.json) on the runner interpreter. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ConfigurationParams,
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
} from 'vscode-languageclient/node';
import { Interpreters } from './python';
import { SECTION, serverSettings, ServerSettings } from './settings';
import launchSpec from '../launch.json';

export const CLIENT_ID = SECTION; // so languageclient applies `hfCacheLint.trace.server` itself
export const CLIENT_NAME = 'hf-cache-lint';

/** Python files on disk and unsaved, and Python cells of any notebook (cells use the vscode-notebook-cell scheme). */
export const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: 'file', language: 'python' },
  { scheme: 'untitled', language: 'python' },
  { scheme: 'vscode-notebook-cell', language: 'python' },
  { notebook: '*', language: 'python' },
];

/** How the server is started: the one definition, shared with the tests (client/launch.json). */
export interface Launch {
  command: string;
  args: string[];
  cwd: string;
}

/**
 * `<runner> -I -S -X utf8 -u <bootstrap> serve` with the extension's folder as working directory.
 * Isolated mode keeps the workspace (and PYTHONPATH, the user site) off the server's sys.path: started as
 * `python -m` in the workspace folder, a workspace `json.py` or `uuid.py` would run at start-up. The
 * bootstrap (bundled/serve.py in the .vsix, client/serve.py in a checkout) puts the bundled server and its
 * libraries on sys.path itself, so no PYTHONPATH is set: the user's PYTHONPATH reaches the analysed
 * interpreter (jedi) unchanged, the bundled libraries never do.
 */
export function serverLaunch(extensionPath: string, runner: string): Launch {
  const bootstrap = launchSpec.bootstrap.map((p) => path.join(extensionPath, p)).find((p) => fs.existsSync(p));
  if (!bootstrap) {
    throw new Error(`no server bootstrap (${launchSpec.bootstrap.join(', ')}) in ${extensionPath}`);
  }
  const fill = (arg: string): string => arg.replace('{bootstrap}', bootstrap).replace('{extension}', extensionPath);
  return { command: runner, args: launchSpec.args.map(fill), cwd: fill(launchSpec.cwd) };
}

function serverOptions(extensionPath: string, interpreters: Interpreters): ServerOptions {
  const launch = serverLaunch(extensionPath, interpreters.runner);
  const run = { command: launch.command, args: launch.args, options: { cwd: launch.cwd, env: { ...process.env } } };
  return { run, debug: run };
}

export function createClient(
  extensionPath: string,
  interpreters: Interpreters,
  settings: ServerSettings,
  outputChannel: vscode.LogOutputChannel,
): LanguageClient {
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel,
    traceOutputChannel: outputChannel,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    diagnosticCollectionName: CLIENT_NAME,
    initializationOptions: settings,
    markdown: { isTrusted: false, supportHtml: false },
    middleware: {
      workspace: {
        // Answer the server's `workspace/configuration` for our section with the same camelCase shape as the
        // initializationOptions (with the resolved interpreter, and trust rules applied), not raw settings.
        configuration: async (params: ConfigurationParams, token, next) => {
          const raw = await next(params, token);
          if (!Array.isArray(raw)) {
            return raw;
          }
          return params.items.map((item, i) => {
            if (item.section !== SECTION) {
              return raw[i];
            }
            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
            return serverSettings(scope, interpreters.analysed);
          });
        },
      },
    },
  };
  return new LanguageClient(
    CLIENT_ID,
    CLIENT_NAME,
    serverOptions(extensionPath, interpreters),
    clientOptions,
  );
}
