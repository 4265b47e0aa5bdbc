"""The language server: a thin pygls adapter over engine/ (the only package importing pygls/lsprotocol)."""
