"""Checking: a module's text, a file or a notebook in, findings out; the layer above engine/ and rules/.

engine/ works out what the code does (the facts at each generate() call); rules/ say what is wrong with it
(findings and their fixes). This package joins the two: it runs the enabled rules over the engine's facts and
applies the settings, the suppression comments and the version guards. The front ends (cli_support/, lsp/,
fixcheck/) call it; engine/ and rules/ never import it (tests/engine/test_layers.py).

    screening.py  the one screen for the enabled rules (engine/screen/screen.py fed by what they declare they read)
    source.py     check_source: screen, parse and interpret (engine), run the rules, settings, suppressions
    notebooks.py  check_cells: a notebook's code cells as one module, findings mapped back to their cells
    files.py      check_file / check_data: bytes from disk, size limit, decoding, .py or .ipynb
    rule_docs.py  the registry's names and summaries as data for the hover (hover.py)
    hover.py      hover text: a finding's story and its rule's docs, what a written `cache_implementation` builds
    completion.py completion of `cache_implementation` values, and what each builds
    across.py     one report for a range of releases: the findings of each checked release merged per place
    jedi_bridge.py jedi over the analysed environment's packages, to refute a `.generate` receiver's being a model

Import from the module that defines a name (as everywhere in the package); this file re-exports nothing, so
importing one part does not load the others.
"""
