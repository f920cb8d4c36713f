"""Built-in plugin: sqlite_store (filled in by its own change)."""
