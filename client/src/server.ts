/** Builds the language client that runs `<python> -m hf_cache_lint serve` with the bundled libraries. */
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

export const CLIENT_ID = SECTION; // so languageclient applies `hfCacheLint.trace.server` itself
export const CLIENT_NAME = 'hf-cache-lint';

/** Python files on disk and unsaved, and Python cells of any notebook (cells use the vscode-notebook-cell scheme). */
export const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: 'file', language: 'python' },
  { scheme: 'untitled', language: 'python' },
  { scheme: 'vscode-notebook-cell', language: 'python' },
  { notebook: '*', language: 'python' },
];

/**
 * PYTHONPATH entries for the server. The .vsix carries `bundled/tool` (the hf_cache_lint package) and
 * `bundled/libs` (pygls, lsprotocol, jedi, parso and their dependencies), so the user's environment needs nothing.
 * From a source checkout (no bundled/ yet) the repo's `server/` folder is used instead.
 */
export function serverPythonPath(extensionPath: string): string[] {
  const bundled = [path.join(extensionPath, 'bundled', 'tool'), path.join(extensionPath, 'bundled', 'libs')];
  if (bundled.every((dir) => fs.existsSync(dir))) {
    return bundled;
  }
  return [path.join(extensionPath, 'server')];
}

function serverOptions(extensionPath: string, interpreters: Interpreters, cwd: string): ServerOptions {
  // PYTHONPATH comes before site-packages: the bundled pygls wins over any other in the user's environment.
  const pythonPath = [...serverPythonPath(extensionPath), process.env.PYTHONPATH ?? '']
    .filter((p) => p.length > 0)
    .join(path.delimiter);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PYTHONPATH: pythonPath,
    PYTHONUTF8: '1',
    PYTHONUNBUFFERED: '1',
  };
  const run = { command: interpreters.runner, args: ['-m', 'hf_cache_lint', 'serve'], options: { cwd, env } };
  return { run, debug: run };
}

function workspaceCwd(extensionPath: string): string {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder?.uri.fsPath ?? extensionPath;
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
    serverOptions(extensionPath, interpreters, workspaceCwd(extensionPath)),
    clientOptions,
  );
}
