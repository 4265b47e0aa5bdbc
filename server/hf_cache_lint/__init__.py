"""hf-cache-lint: find transformers generate() cache conflicts before they raise."""

__version__ = "0.1.0"
