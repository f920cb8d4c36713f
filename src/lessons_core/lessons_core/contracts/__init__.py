"""Contract test kits for plugin authors (they need pytest); see :mod:`lessons_core.testing`."""
