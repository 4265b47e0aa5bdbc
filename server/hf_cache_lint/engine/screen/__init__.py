"""Stage screen: can this text hold a finding for the enabled rules? Asked before any parse. Imports base/,
environment/, text/, facts/ and output/ (the fact kinds the rules read, the cache keywords), never syntax/ or
interpreter/: the screen reads the text and CPython's `ast`, not parso.

- screen.py: the one screen, fed by the fact kinds the enabled rules read (its entry point);
- gate.py: for a whole file, the compiled module's names and constants, and where they stand;
- reaching.py: which keywords can reach a call of generate (`ast`);
- value_sources.py: whether a `cache_implementation` can be set, a `from_pretrained` load, a cache be read;
- lent_values.py: what a name imported from a workspace module can be, read with `ast`.
- library_values.py: whether a name imported from transformers (or unsloth) can make a cache or model, read
  off the text's imports and where the names stand.
"""
