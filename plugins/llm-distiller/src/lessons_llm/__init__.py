"""lessons-llm: a deep detector that has a language model write the lesson of each Tier 2
finding, from a short redacted excerpt, within a per-scan budget, with a cache."""

__version__ = "0.1.0"
