"""What the oracle simulates so user-style code runs unchanged on a CPU without the Hub (worker side).

- a GPU: any `device="cuda..."` / `.to("cuda")` / `.cuda()` lands on the CPU (a TorchFunctionMode sees
  factory functions and Tensor.to alike); `nn.Module.to/cuda` are routed through it; torch.compile is identity.
- a SMALL GPU (the harness's simulated memory limit): `generate` raises torch.cuda.OutOfMemoryError when the
  prompt is longer than OOM_TOKENS tokens, unless the cache is offloaded (cache_implementation "offloaded*"
  or an offloaded cache object). This lets OOM-retry code paths (corpus 005) run. Continuous batching
  ("paged") sees a 1 GiB device instead of the machine's RAM.
- a tokenizer: a real PreTrainedTokenizerFast over a word-level vocabulary (one token per word, so length
  grows with text), with a chat template; every tokenizer from_pretrained returns it.
- threads the snippet starts with Thread(target=...): run to completion inside start() (so they are joined);
  an exception there is recorded as the snippet's outcome, with the line where the Thread was created.
"""

from __future__ import annotations

import functools
import sys
import threading
import types
from typing import Any

import torch
import transformers
from torch.overrides import TorchFunctionMode
from transformers.generation.utils import GenerationMixin

OOM_TOKENS = 2000
OFFLOADED = ("offloaded", "offloaded_static", "offloaded_hybrid", "offloaded_hybrid_chunked")
CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant:{% endif %}")

# Set by the worker per snippet: the snippet's file, and exceptions raised in its synchronous threads.
SNIPPET_FILE: list[str] = [""]
THREAD_ERRORS: list[tuple[BaseException, int | None]] = []


def _cpu(value: Any) -> Any:
    if isinstance(value, (str, torch.device)) and str(value).startswith("cuda"):
        return "cpu"
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # a bare int is a CUDA ordinal only for .to()/cuda(); handled by callers
    return value


class CpuForCuda(TorchFunctionMode):
    """Every CUDA device request becomes the CPU."""

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = dict(kwargs or {})
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        if func is torch.Tensor.cuda:
            return args[0]
        if func is torch.Tensor.to:
            args = tuple(_cpu(a) for a in args)
        return func(*args, **kwargs)


def _module_to(original: Any) -> Any:
    @functools.wraps(original)
    def to(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_cpu(a) for a in args)
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        return original(self, *args, **kwargs)

    return to


def _prompt_tokens(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    for value in (kwargs.get("input_ids"), kwargs.get("inputs"), args[0] if args else None,
                  kwargs.get("inputs_embeds")):
        if isinstance(value, torch.Tensor) and value.dim() >= 2:
            return int(value.shape[1])
    return 0


def _offloaded(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    configs = [kwargs.get("generation_config"), getattr(model, "generation_config", None)]
    if len(args) > 1:
        configs.append(args[1])
    impls = [kwargs.get("cache_implementation")] + [getattr(c, "cache_implementation", None) for c in configs]
    caches = [kwargs.get(k) for k in ("past_key_values", "cache_params", "cache")]
    return any(i in OFFLOADED for i in impls) or any("Offloaded" in type(c).__name__ or getattr(c, "offloading", False)
                                                     for c in caches if c is not None)


def _generate(original: Any) -> Any:
    @functools.wraps(original)
    def generate(self: Any, *args: Any, **kwargs: Any) -> Any:
        n = _prompt_tokens(args, kwargs)
        if n > OOM_TOKENS and not _offloaded(self, args, kwargs):
            raise torch.cuda.OutOfMemoryError(
                f"CUDA out of memory (oracle's simulated GPU: a {n}-token prompt exceeds {OOM_TOKENS} tokens "
                "without an offloaded cache)")
        return original(self, *args, **kwargs)

    return generate


def make_tokenizer(*_args: Any, **_kwargs: Any) -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3}
    for i in range(4, 300):  # a few hundred word ids, so texts do not all map to <unk>
        vocab[f"w{i}"] = i
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="<pad>",
        model_input_names=["input_ids", "attention_mask"])  # no token_type_ids: generate would reject them
    tok.chat_template = CHAT_TEMPLATE
    return tok


class _SyncThread:
    """Patches for threading.Thread: snippet-created threads run inside start()."""

    init = threading.Thread.__init__
    start = threading.Thread.start
    join = threading.Thread.join

    @staticmethod
    def patched_init(self: threading.Thread, *args: Any, **kwargs: Any) -> None:
        _SyncThread.init(self, *args, **kwargs)
        # Only threads the snippet itself creates (its frame is the direct caller): a library's own
        # thread pools (e.g. 5.x weight loading) must keep real threads.
        caller = sys._getframe(1)
        mine = caller.f_code.co_filename == SNIPPET_FILE[0]
        self._oracle_line = caller.f_lineno if mine else None  # type: ignore[attr-defined]

    @staticmethod
    def patched_start(self: threading.Thread) -> None:
        if getattr(self, "_oracle_line", None) is None:
            return _SyncThread.start(self)
        self._oracle_sync = True  # type: ignore[attr-defined]
        try:
            self.run()
        except BaseException as exc:  # the thread's failure is the snippet's runtime outcome
            THREAD_ERRORS.append((exc, self._oracle_line))  # type: ignore[attr-defined]
            streamer = (getattr(self, "_kwargs", None) or {}).get("streamer")
            if streamer is not None and hasattr(streamer, "end"):
                streamer.end()  # unblock a consumer iterating the streamer, as a finished generate would
        return None

    @staticmethod
    def patched_join(self: threading.Thread, timeout: float | None = None) -> None:
        if not getattr(self, "_oracle_sync", False):
            _SyncThread.join(self, timeout)


def install_mode() -> CpuForCuda:
    """Entered around each snippet (a mode is per thread; the snippet runs in the child's main thread)."""
    return CpuForCuda()


def _quanto_without_compiling() -> None:
    """optimum-quanto JIT-compiles a C++ `unpack` kernel (~1-2 min) on first use; its own pure-torch
    implementation computes the same thing, so hand that to the extension object instead."""
    try:
        import optimum.quanto.library.extensions.cpp as cpp
    except ImportError:
        return

    def unpack(packed: torch.Tensor, bits: int) -> torch.Tensor:  # optimum/quanto/library/unpack.py
        parts = [(packed & (2 ** (bits * (i + 1)) - 1)) >> (bits * i) for i in range(8 // bits)]
        return torch.cat(parts).to(torch.uint8)

    cpp.ext._lib = types.SimpleNamespace(unpack=unpack)


SIM_GPU_BYTES = 1 << 30  # what continuous batching ("paged") may size its cache from


def _small_gpu_for_paged() -> None:
    """Continuous batching sizes its paged cache from the device's free memory: on the CPU that is the
    machine's RAM (60-90% of it), which got the worker OOM-killed. Report a 1 GiB simulated GPU instead."""
    try:
        from transformers.generation.continuous_batching import cache, utils
    except ImportError:
        return
    original = getattr(utils, "get_device_and_memory_breakdown", None)
    if original is None:
        return  # releases whose continuous batching sizes its cache otherwise (5.13.1: the release table's oracle)

    def breakdown() -> tuple[Any, int, int, int]:
        device, total, reserved, allocated = original()
        if device.type == "cpu":
            return device, SIM_GPU_BYTES, 0, 0
        return device, total, reserved, allocated

    utils.get_device_and_memory_breakdown = breakdown
    cache.get_device_and_memory_breakdown = breakdown


def install() -> None:
    _quanto_without_compiling()
    _small_gpu_for_paged()
    torch.nn.Module.to = _module_to(torch.nn.Module.to)  # type: ignore[method-assign]
    torch.nn.Module.cuda = lambda self, *a, **k: self  # type: ignore[method-assign]
    torch.compile = lambda model=None, *a, **k: model if model is not None else (lambda f: f)  # type: ignore[assignment]
    GenerationMixin.generate = _generate(GenerationMixin.generate)  # type: ignore[method-assign]
    transformers.AutoTokenizer.from_pretrained = classmethod(make_tokenizer)  # type: ignore[assignment]
    transformers.PreTrainedTokenizerBase.from_pretrained = classmethod(make_tokenizer)  # type: ignore[assignment]
    threading.Thread.__init__ = _SyncThread.patched_init  # type: ignore[method-assign]
    threading.Thread.start = _SyncThread.patched_start  # type: ignore[method-assign]
    threading.Thread.join = _SyncThread.patched_join  # type: ignore[method-assign]
