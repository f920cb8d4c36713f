"""Built-in plugin: dedup (filled in by its own change)."""
