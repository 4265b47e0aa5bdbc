"""Stage base: what every stage shares. Imports no other stage.

- findings.py: the values the engine hands out: positions, spans, edits, fixes, findings;
- process_state.py: every module global that outlives a call, named with its owner and reset;
- collector.py: the cyclic garbage collector paused around work that allocates a tree's worth of objects.
"""
