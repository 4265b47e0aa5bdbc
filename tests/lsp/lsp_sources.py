"""Source texts shared by the LSP tests (HFC001: a cache and `cache_implementation` in one generate call)."""

HEADER = '''from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("x")
'''
CALL = 'out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
CLEAN_CALL = 'out = model.generate(past_key_values=DynamicCache())\n'
CONFLICT = HEADER + CALL
CLEAN = HEADER + CLEAN_CALL
FLAGGED = "past_key_values=DynamicCache()"

PREFERRED = "Set `cache_implementation=None` in this call"
BARE_TITLES = [PREFERRED, "Remove `past_key_values=`", "Remove `cache_implementation=`", "Ignore HFC001 on this line"]


def in_editor(title: str, code: str = "HFC001") -> str:
    """A fix's title as a code action shows it: the tool and the code first (ruff-lsp's "Ruff (F401): ...")."""
    return f"hf-cache-lint ({code}): {title}"


PREFERRED_ACTION = in_editor(PREFERRED)
TITLES = [in_editor(t) for t in BARE_TITLES]
IGNORE_PREFIX = "hf-cache-lint (HFC"
