"""The CLI's helpers: config loading, file discovery, the check/fix runs and the output formats."""
