"""Stage output: what the engine hands the rules, and what they build findings with. Imports base/,
environment/, text/ and facts/.

- analysis.py: `Analysis`: what the engine learned about one file, its facts by kind;
- keywords.py: the one keyword-argument lookup, on every kind of argument list;
- suppress.py: suppression comments (`# hf-cache-lint: ignore[...]`, `# noqa: ...`);
- edits.py: edits built from node positions, for fixes (add, replace, remove a keyword, add a comment).
"""
