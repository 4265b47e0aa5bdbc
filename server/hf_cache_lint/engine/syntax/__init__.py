"""Stage syntax: parso's tree of the text, and helpers that read it. Imports base/ only.

- fast_tokenizer.py: parso's tokenizer, with the same token stream, faster;
- fast_parser.py: parso's error-recovering parser with its per-token work in one loop;
- grammar_table.py: parso's grammar object from the tables the package ships, not regenerated at every start;
- parsing.py: parso's incremental parse of an editor buffer, told which lines changed;
- splice.py: an edit that keeps the line count re-parses only the statement holding it;
- line_map.py: where the last text's places stand after an edit that added or removed lines;
- nodes.py: tree helpers: spans, call arguments, dotted names, import paths;
- constants.py: literal constants as Python reads them (numbers, the truth of a literal condition);
- own_names.py: what a module's own code says is not transformers';
- comprehensions.py: the subscripts a comprehension makes of the enclosing scope's names;
- dominance.py: whether code at one place always runs before code at another in the same function (and the `if` whose first branch holds a place, `branch_of`);
- raising_calls.py: the calls of a function that raise at every run because a line of its own block does;
- use_scope.py: the try/if context of a position (a handler of its error, a branch chosen by testing the object,
  an undecided condition), for a use the interpreter recorded (HFC009).
"""
