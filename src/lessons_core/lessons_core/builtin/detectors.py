"""Built-in plugin: detectors (filled in by its own change)."""
