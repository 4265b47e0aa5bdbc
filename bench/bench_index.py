"""What the cross-module fact index costs a keystroke.

Checks a 100-line user file and transformers' own generation/utils.py (about 4,500 lines) with the
transformers package tree as the workspace (its relative imports are the "other modules"), in three
modes, alternating rounds in one process:

  baseline: workspace imports not resolved at all (the index switched off),
  cold:     the index emptied before every check (first keystroke after a change elsewhere),
  warm:     the index kept (every later keystroke).

The 100-line file finds 24 conflicts only when the index is on (its model comes from the other module),
so its extra time is mostly the findings themselves; the last line isolates the index: one warm lookup.
Figures are medians, reported as ratios against the baseline of the same run (machines here are noisy).
Usage: python bench/bench_index.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment import workspace
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import modules

ROOT = Path(__file__).resolve().parents[1]


def transformers_tree() -> Path:
    for candidate in sorted((ROOT / ".cache").glob("**/transformers/generation/utils.py")):
        return candidate.parents[2]
    raise SystemExit("no transformers source tree under .cache/ (run scripts/setup-oracle.sh or bench/bench_cli.py)")


MODELS = """from transformers import AutoModelForCausalLM, GenerationConfig

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
model.generation_config.cache_implementation = "static"
config = GenerationConfig(max_new_tokens=16)
"""


def user_file(workspace: Path) -> tuple[str, Path]:
    """A 100-line serving module whose model and config come from a sibling workspace module."""
    (workspace / "app").mkdir(parents=True, exist_ok=True)
    (workspace / "app" / "models.py").write_text(MODELS)
    lines = ["from transformers import DynamicCache", "from .models import config, model", ""]
    for i in range(24):
        lines += [f"def handler_{i}(inputs):",
                  "    return model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())",
                  "", ""]
    lines += ["# end"] * (100 - len(lines))
    path = workspace / "app" / "serve.py"
    path.write_text("\n".join(lines) + "\n")
    return path.read_text(), path


def timed(text: str, path: Path, ctx: Context, mode: str) -> float:
    if mode == "cold":
        modules.clear_cache()
    start = time.perf_counter()
    check_source(text, str(path), context=ctx)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    rounds = ap.parse_args().rounds
    pkg = transformers_tree() / "transformers"
    big = pkg / "generation" / "utils.py"
    with tempfile.TemporaryDirectory() as tmp:
        cases = {"100 lines, model from a sibling module": (user_file(Path(tmp)), Context(workspace=Path(tmp))),
                 f"transformers' generation/utils.py ({len(big.read_text().splitlines())} lines), the package "
                 "as workspace": ((big.read_text(), big), Context(workspace=pkg.parent))}
        run(cases, rounds)
        models = Path(tmp) / "app" / "models.py"
        ctx = Context(workspace=Path(tmp))
        modules.exports(models, ctx)
        start = time.perf_counter()
        for _ in range(1000):
            modules.exports(models, ctx)
        print(f"a warm index lookup (stat + cache hit): {(time.perf_counter() - start) * 1000:.1f} us")


def run(cases: dict[str, tuple[tuple[str, Path], Context]], rounds: int) -> None:
    real_resolve = workspace.resolve
    for label, ((text, path), ctx) in cases.items():
        samples: dict[str, list[float]] = {"baseline": [], "cold": [], "warm": []}
        for _ in range(rounds):
            for mode in samples:
                workspace.resolve = (lambda *a, **k: None) if mode == "baseline" else real_resolve  # type: ignore[assignment]
                samples[mode].append(timed(text, path, ctx, mode))
        workspace.resolve = real_resolve
        base = statistics.median(samples["baseline"])
        print(f"{label}: baseline {base * 1000:.1f} ms", end="")
        for mode in ("cold", "warm"):
            med = statistics.median(samples[mode])
            print(f" | {mode} {med * 1000:.1f} ms ({med / base:.2f}x)", end="")
        print()


if __name__ == "__main__":
    main()
