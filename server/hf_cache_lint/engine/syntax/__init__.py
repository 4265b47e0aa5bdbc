"""Stage syntax: parso's tree of the text, and helpers that read it. Imports base/ only.

- fast_tokenizer.py: parso's tokenizer, with the same token stream, faster;
- fast_parser.py: parso's error-recovering parser with its per-token work in one loop;
- parsing.py: parso's incremental parse of an editor buffer, told which lines changed;
- splice.py: an edit that keeps the line count re-parses only the statement holding it;
- nodes.py: tree helpers: spans, call arguments, dotted names, import paths;
- constants.py: literal constants as Python reads them (numbers, the truth of a literal condition);
- cache_values.py: which expressions hold a transformers cache, as the module's own text says (HFC007);
- own_names.py: what a module's own code says is not transformers'.
"""
