/**
 * Which Python to analyse and which to run the server with.
 *
 * Analysed (trusted workspace): the `hfCacheLint.interpreter` setting when set, else the Python extension's
 * active environment when that extension is installed, else `python3` on PATH.
 * Runner: the analysed interpreter when it is Python >= 3.10 (the server's floor), else `python3` on PATH.
 * Untrusted workspace: nothing is analysed with an interpreter (the server runs none: no version probe, no
 * jedi subprocess) and the runner is the user-level `hfCacheLint.interpreter` or `python3` on PATH: neither
 * the workspace's settings nor the Python extension (which may pick the workspace's own .venv) are asked.
 * The Python extension is optional (no extensionDependencies): editors without a marketplace (code-server
 * installs offline) must still work.
 */
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { PythonExtension } from '@vscode/python-extension';
import { logInfo, logWarn } from './logging';
import { interpreterSetting } from './settings';

const PYTHON_EXTENSION_ID = 'ms-python.python';
const FALLBACK = process.platform === 'win32' ? 'python' : 'python3';
const MIN_SERVER_PYTHON = [3, 10];

export type InterpreterSource = 'setting' | 'python-extension' | 'PATH' | 'untrusted';

export interface Interpreters {
  /** Interpreter of the environment the server analyses (its transformers version, jedi inference);
   *  undefined in an untrusted workspace, where the server runs no interpreter. */
  analysed: string | undefined;
  source: InterpreterSource;
  /** Interpreter that runs the server itself, with the bundled libraries on PYTHONPATH. */
  runner: string;
  /** The runner's `major.minor`, or undefined when it could not be run. */
  runnerVersion: string | undefined;
}

async function pythonExtension(): Promise<PythonExtension | undefined> {
  if (!vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
    return undefined;
  }
  try {
    return await PythonExtension.api();
  } catch (error) {
    logWarn(`Python extension present but its API is unavailable: ${String(error)}`);
    return undefined;
  }
}

async function fromPythonExtension(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonExtension();
  if (!api) {
    return undefined;
  }
  const active = api.environments.getActiveEnvironmentPath(resource);
  const resolved = await api.environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath;
}

/** `major.minor` of `python`, or undefined when it does not run. `-I`: nothing from the working directory. */
export function pythonVersion(python: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-I', '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { timeout: 15000 }, (err, out) =>
      resolve(err ? undefined : out.trim()),
    );
  });
}

function atLeast(version: string | undefined, floor: number[]): boolean {
  if (!version) {
    return false;
  }
  const [major, minor] = version.split('.').map(Number);
  return major > floor[0] || (major === floor[0] && minor >= floor[1]);
}

export async function resolveInterpreters(resource?: vscode.Uri): Promise<Interpreters> {
  if (!vscode.workspace.isTrusted) {
    return untrustedInterpreters(resource);
  }
  let analysed = interpreterSetting(resource);
  let source: InterpreterSource = 'setting';
  if (!analysed) {
    const fromExtension = await fromPythonExtension(resource);
    analysed = fromExtension ?? FALLBACK;
    source = fromExtension ? 'python-extension' : 'PATH';
  }
  let runner = analysed;
  let runnerVersion = await pythonVersion(analysed);
  if (!atLeast(runnerVersion, MIN_SERVER_PYTHON) && analysed !== FALLBACK) {
    logWarn(`${analysed} (Python ${runnerVersion ?? 'not runnable'}) cannot run the server; using ${FALLBACK}`);
    runner = FALLBACK;
    runnerVersion = await pythonVersion(FALLBACK);
  }
  logInfo(`Analysed interpreter: ${analysed} (from ${source}); server runs on ${runner} (Python ${runnerVersion ?? '?'})`);
  return { analysed, source, runner, runnerVersion };
}

/** Restricted mode: only a user-level choice or PATH runs the server, and no interpreter is analysed. */
async function untrustedInterpreters(resource?: vscode.Uri): Promise<Interpreters> {
  const user = interpreterSetting(resource); // the user-level value only, in an untrusted workspace
  let runner = user || FALLBACK;
  let runnerVersion = await pythonVersion(runner);
  if (!atLeast(runnerVersion, MIN_SERVER_PYTHON) && runner !== FALLBACK) {
    runner = FALLBACK;
    runnerVersion = await pythonVersion(FALLBACK);
  }
  logInfo(`Untrusted workspace: no interpreter is analysed; server runs on ${runner} (Python ${runnerVersion ?? '?'})`);
  return { analysed: undefined, source: 'untrusted', runner, runnerVersion };
}

/** Calls `listener` when the Python extension's active environment changes (no-op without that extension). */
export async function onDidChangeInterpreter(listener: () => void): Promise<vscode.Disposable> {
  const api = await pythonExtension();
  return api ? api.environments.onDidChangeActiveEnvironmentPath(() => listener()) : new vscode.Disposable(() => {});
}

