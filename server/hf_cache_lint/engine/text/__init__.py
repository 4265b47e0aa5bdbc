"""Stage text: the source text, before any parse. Imports base/ and environment/.

- text.py: decoding, line tables, word searches, edits applied to a text;
- prefilter.py: the words a finding needs: the screen's first, cheapest test, and each fact kind's `said`;
- notebook.py: a notebook's code cells joined into one module's text, findings mapped back per cell.
"""
