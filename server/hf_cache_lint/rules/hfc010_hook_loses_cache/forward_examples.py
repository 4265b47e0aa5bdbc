"""HFC010 examples of a model subclass's `forward` with a fixed keyword list under `generate` (forward_keywords.py);
each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid
from hf_cache_lint.rules.snippets import prelude

# LLaVA's LlavaLlamaForCausalLM.forward keyword list, handing the inputs on to the parent's forward.
_CHAT = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n\n\n"
    "class Chat(LlamaForCausalLM):\n"
    "    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,\n"
    "                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None,\n"
    "                output_hidden_states=None, return_dict=None{extra}):\n"
    "        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,\n"
    "                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,\n"
    "                               use_cache=use_cache, return_dict=return_dict{passed})\n\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "chat = Chat(config).eval()\n"
    "out = chat.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False)\n"
)
CHAT = _CHAT.format(extra="", passed="")
# The same head beside the project's plain mixin of helpers (LLaVA-Med's `LlavaMetaForCausalLM`: no base, no forward,
# no generation hook), its `generate` override calling `super().generate(...)`.
_MIXED = _CHAT.replace(
    "class Chat(LlamaForCausalLM):\n",
    "class Helpers:\n    def embed(self, input_ids):\n        return self.get_input_embeddings()(input_ids)\n\n\n"
    "class Chat(LlamaForCausalLM, Helpers):\n"
    "    @torch.no_grad()\n    def generate(self, inputs=None, **kwargs):\n"
    "        return super().generate(inputs_embeds=self.embed(inputs), **kwargs)\n\n").replace(
    "do_sample=False)", "min_new_tokens=3, do_sample=False)")
CHAT_KWARGS = _CHAT.format(extra=", **kwargs", passed=", **kwargs")


def _seen(text: str, seen: str) -> str:
    """`text` whose forward records, at each step, whether it got the cache (`seen`), asserted after generate (three
    steps: the random weights may pick the end token first)."""
    return (text.replace("import torch\n", "import torch\n\nSEEN = []\n")
            .replace("        return super().forward(", f"        SEEN.append({seen})\n        return super().forward(")
            .replace("max_new_tokens=3, do_sample=False", "max_new_tokens=3, min_new_tokens=3, do_sample=False")
            + 'assert SEEN[1:] and all(SEEN[1:]), f"a step ran without the cache: {SEEN}"\n')


# VideoLLaMA2's forward: the same list with a `**kwargs` its body never names, so 5.24's `cache=` stops there.
SWALLOWED = _seen(_CHAT.format(extra=", **kwargs", passed=""), "past_key_values is not None")

# A patched attention forward in the 4.4x shape `(attn_output, attn_weights, past_key_value)` (DuoAttention's), bound
# onto every layer of a loaded Llama: the decoder layers unpack two values from 4.48.0 (the release table's `unpack:`).
_PATCHED = (
    "import types\n\n" + prelude() + "\n\n"
    "def kept_forward(self, hidden_states, *args, **kwargs):\n"
    "    out = type(self).forward(self, hidden_states, *args, **kwargs)\n"
    "    return {returned}\n\n\n"
    "for layer in model.model.layers:\n"
    "    layer.self_attn.forward = types.MethodType(kept_forward, layer.self_attn)\n\n"
    "logits = model(**inputs).logits\n"
)
PATCHED_THREE = _PATCHED.format(returned="out[0], out[1], None")
PATCHED_TWO = _PATCHED.format(returned="out[0], out[1]")
# The same forward patched by a walker over the model's modules that picks them by class name (SelfExtend's
# `modify_method_of_instance`), the function bound with `functools.partial` first.
_WALKED = (
    "from functools import partial\nfrom types import MethodType\n\n" + prelude() + "\n\n"
    "def kept_forward(self, hidden_states, *args, window=8, **kwargs):\n"
    "    out = type(self).forward(self, hidden_states, *args, **kwargs)\n"
    "    return {returned}\n\n\n"
    "def modify_method_of_instance(instance, class_name, method_name, new_method):\n"
    "    if instance.__class__.__name__ == class_name:\n"
    "        setattr(instance, method_name, MethodType(new_method, instance))\n"
    "        return True\n"
    "    found = False\n"
    "    for child in instance._modules.values():\n"
    "        found = modify_method_of_instance(child, class_name, method_name, new_method) or found\n"
    "    return found\n\n\n"
    "forward = partial(kept_forward, window=4)\n"
    'modify_method_of_instance(model, "LlamaAttention", "forward", forward)\n'
    "logits = model(**inputs).logits\n"
)

# The module's own attention module installed in each decoder layer in place of transformers' (AutoGPTQ's fused
# attention, `layer.self_attn = Fused(layer.self_attn)`), its forward returning the 4.4x triple.
_INSTALLED = (
    "from torch import nn\n\n" + prelude() + "\n\n"
    "class KeptAttention(nn.Module):\n"
    "    def __init__(self, attn):\n"
    "        super().__init__()\n"
    "        self.attn = attn\n\n"
    "    def forward(self, hidden_states, *args, **kwargs):\n"
    "        out = self.attn(hidden_states, *args, **kwargs)\n"
    "        return {returned}\n\n\n"
    "for layer in model.model.layers:\n"
    "    layer.self_attn = KeptAttention(layer.self_attn)\n\n"
    "logits = model(**inputs).logits\n"
)

# A 4.4x attention forward (PyramidKV's, SnapKV's) patched onto Llama's attention class: it reads the head count
# `__init__` set on `self` up to 4.47.1 (the release table's `attr:` facts), then runs the class's own forward.
_SELF_READ = (
    "from transformers.models.llama import modeling_llama\n" + prelude() + "\n"
    "ORIGINAL = modeling_llama.LlamaAttention.forward\n\n\n"
    "def counted_forward(self, hidden_states, *args, **kwargs):\n"
    "    heads = {heads}\n"
    "    assert heads > 0\n"
    "    return ORIGINAL(self, hidden_states, *args, **kwargs)\n\n\n"
    "{patch}\n"
    "logits = model(**inputs).logits\n"
)
_CLASS_PATCH = "modeling_llama.LlamaAttention.forward = counted_forward"
# EasyKV's walker: every module whose class has the name gets the function bound as its own `forward`.
_WALKER_PATCH = (
    "def modify_method_of_instance(instance, target_class_name, target_method_name, new_method):\n"
    "    for module in instance.modules():\n"
    "        if module.__class__.__name__ == target_class_name:\n"
    "            setattr(module, target_method_name, MethodType(new_method, module))\n\n\n"
    'modify_method_of_instance(model, "LlamaAttention", "forward", counted_forward)'
)
SELF_READ = _SELF_READ.format(heads="self.num_heads", patch=_CLASS_PATCH)
# streaming-llm's pos-shift patch: bound onto each module that an `isinstance` test says is Llama's attention.
_INSTANCE_PATCH = (
    "for module in model.modules():\n"
    "    if isinstance(module, modeling_llama.LlamaAttention):\n"
    "        module.forward = types.MethodType(counted_forward, module)\n"
)

INVALID: tuple[Invalid, ...] = (
    Invalid(
        CHAT,
        flagged="forward",
        versions=("4.57.6", "5.24.0", "5.25.0"),
        message_contains="got an unexpected keyword argument",
        note="a `LlamaForCausalLM` subclass's forward with LLaVA's keyword list under `generate`: `cache_position` "
             "(to 5.3.0) and `cache` (from 5.24.0) are not among them; 5.4.0-5.23.0 hand neither",
    ),
    Invalid(
        CHAT.replace("LlamaConfig, LlamaForCausalLM", "GemmaConfig, GemmaForCausalLM").replace(
            "class Chat(LlamaForCausalLM)", "class Chat(GemmaForCausalLM)").replace(
            "config = LlamaConfig(", "config = GemmaConfig(head_dim=16, "),
        flagged="forward",
        versions=("4.57.6", "5.24.0", "5.25.0"),
        message_contains="got an unexpected keyword argument",
        note="the same forward on Gemma's head (MoDA's `LlavaGemmaForCausalLM`), whose generate also uses "
             "`GenerationMixin`'s hook",
    ),
    Invalid(
        _MIXED.format(extra="", passed=""),
        flagged="forward",
        versions=("4.57.6", "5.24.0", "5.25.0"),
        message_contains="got an unexpected keyword argument",
        note="the same forward in a head that also mixes in the project's plain helper class and wraps `generate` "
             "(LLaVA-Med's `LlavaMistralForCausalLM`): the mixin changes nothing of what generate hands the forward",
    ),
    Invalid(
        SWALLOWED,
        flagged="forward",
        versions=("5.24.0", "5.25.0"),
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: the forward's steps after the first got no cache
        message_contains="a `**kwargs` it never hands on",
        note="a forward taking `**kwargs` it never hands on (VideoLLaMA2): from 5.24.0 generate hands the cache as "
             "`cache=`, which lands there, and each step runs without its past (silently)",
    ),
    Invalid(
        PATCHED_THREE,
        flagged="layer.self_attn.forward",
        runtime="OTHER",  # a plain ValueError
        message_contains="too many values to unpack (expected 2)",
        note="a patched attention forward returning the 4.4x triple: the decoder layers unpack two from 4.48.0",
    ),
    Invalid(
        "import types\n\n" + prelude() + "\n\n"
        "def old_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,\n"
        "                output_attentions=False, use_cache=False):\n"
        "    return hidden_states, None, past_key_value\n\n\n"
        "for layer in model.model.layers:\n"
        "    layer.self_attn.forward = types.MethodType(old_forward, layer.self_attn)\n\n"
        "logits = model(**inputs).logits\n",
        flagged="past_key_value=None",
        message_contains="got an unexpected keyword argument",
        note="the triple returned by a 4.3x-signature forward without `**kwargs` (PAI's): the layer's call raises "
             "TypeError on a keyword the function cannot take before anything is returned, so that is the finding, "
             "not the unpack's ValueError; no fix (taking the keyword only reaches the return's ValueError)",
    ),
    Invalid(
        _WALKED.format(returned="out[0], out[1], None"),
        flagged="return out[0], out[1], None",
        runtime="OTHER",  # a plain ValueError
        message_contains="too many values to unpack (expected 2)",
        note="the triple patched by a walker that picks the attention modules by class name (SelfExtend): reported at "
             "the function's `return`, the walker's `setattr` being shared by whatever it patches",
    ),
    Invalid(
        _INSTALLED.format(returned="out[0], out[1], None"),
        flagged="return out[0], out[1], None",
        runtime="OTHER",  # a plain ValueError
        message_contains="too many values to unpack (expected 2)",
        note="the module's own attention installed as each layer's `self_attn` (AutoGPTQ's fused attention) returning "
             "the triple: reported at its forward's `return`",
    ),
    Invalid(
        SELF_READ,
        flagged="self.num_heads",
        runtime="OTHER",  # a plain AttributeError
        message_contains="AttributeError: 'LlamaAttention' object has no attribute 'num_heads'",
        note="a 4.4x forward patched onto `LlamaAttention` reading `self.num_heads`, which its `__init__` set up to "
             "4.47.1: from 4.48.0 every layer's forward raises AttributeError",
    ),
    Invalid(
        "from types import MethodType\n\n" + _SELF_READ.format(heads="self.num_key_value_heads * 2",
                                                                patch=_WALKER_PATCH),
        flagged="self.num_key_value_heads",
        runtime="OTHER",  # a plain AttributeError
        message_contains="AttributeError: 'LlamaAttention' object has no attribute 'num_key_value_heads'",
        note="the same read of `self.num_key_value_heads` patched by a walker binding it onto each module whose class "
             "has the name (EasyKV's `modify_method_of_instance`)",
    ),
    Invalid(
        _SELF_READ.format(heads="self.hidden_size // self.head_dim",
                          patch='setattr(modeling_llama.LlamaAttention, "forward", counted_forward)'),
        flagged="self.hidden_size",
        runtime="OTHER",  # a plain AttributeError
        message_contains="AttributeError: 'LlamaAttention' object has no attribute 'hidden_size'",
        note="`setattr(<class>, \"forward\", f)`, reading `self.hidden_size` (set up to 4.47.1) before "
             "`self.head_dim` (set on every release)",
    ),
    Invalid(
        "import types\n\n" + _SELF_READ.format(heads="self.rope_theta", patch=_INSTANCE_PATCH),
        flagged="self.rope_theta",
        runtime="OTHER",  # a plain AttributeError
        message_contains="AttributeError: 'LlamaAttention' object has no attribute 'rope_theta'",
        note="`self.rope_theta` read by a forward bound onto each module an `isinstance(module, LlamaAttention)` test "
             "picks (streaming-llm's pos-shift patch)",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(CHAT_KWARGS, note="the same forward taking `**kwargs` and handing them on to the parent's forward"),
    Valid(_MIXED.format(extra=", **kwargs", passed=", **kwargs"),
          note="the mixed-in head's forward taking `**kwargs` and handing them on"),
    Valid(_seen(CHAT_KWARGS, 'past_key_values is not None or kwargs.get("cache") is not None'),
          note="the swallowing forward handing its `**kwargs` on: the cache reaches the parent's forward on every "
               "release, under either name"),
    Valid(CHAT.replace("chat.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False)",
                       "chat(input_ids=torch.tensor([[1, 2, 3]]), use_cache=True)"),
          note="the fixed-keyword forward called directly, never under generate"),
    Valid(PATCHED_TWO, note="the patched attention forward returning the pair the decoder layers unpack"),
    Valid(_WALKED.format(returned="out[0], out[1]"), note="the walker's patch returning the pair"),
    Valid(_INSTALLED.format(returned="out[0], out[1]"), note="the installed attention returning the pair"),
    Valid(_SELF_READ.format(heads="self.config.num_attention_heads", patch=_CLASS_PATCH),
          note="the patched forward reading the head count off `self.config`, which the class sets on every release"),
    Valid(_SELF_READ.format(heads="self.num_heads", patch=_CLASS_PATCH).replace(
        "logits = model(", "for layer in model.model.layers:\n"
        "    layer.self_attn.num_heads = model.config.num_attention_heads\n\nlogits = model("),
          note="the project sets `num_heads` on each attention module itself before running the model"),
    Valid(_SELF_READ.format(heads="self.head_dim", patch=_CLASS_PATCH),
          note="the patched forward reading `self.head_dim`, which the class has on every release"),
    Valid("import types\n\n" + _SELF_READ.format(heads="self.config.rope_theta if hasattr(self.config, 'rope_theta') "
                                                    "else 1.0", patch=_INSTANCE_PATCH),
          note="the instance patch reading the config's `rope_theta` instead, where the config has one"),
)
