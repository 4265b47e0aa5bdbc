"""The engine: one file's text in, the facts the rules read out. It knows no rules, no protocol, no terminal.

Its stages, each a folder with its map, in the order a check runs them:

- environment/: what the check is run against (the target transformers release, the workspace, checkpoints);
- text/: the source text (decoding, lines, a notebook's cells joined) and the words a finding is made of;
- screen/: can this text hold a finding for the enabled rules? (before any parse);
- syntax/: parso's tree, parsed fast and incrementally, and the helpers that read it;
- interpreter/: the abstract interpreter, which records the facts;
- facts/: the fact kinds, one module each (the unit that crosses from the engine to the rules);
- output/: what the rules are handed: the `Analysis` (facts by kind), and what they build findings with;
- base/: what every stage shares (findings and positions, process-wide state).

A stage imports only the stages tests/engine/test_layers.py `STAGES` allows it (the screen never the syntax or the
interpreter; the syntax only base/). Nothing is imported here, so importing a stage loads only what it needs.
"""
