"""``lessons report``: one self-contained HTML page of what the lessons did.

Three steps, each its own module so each can be tested and priced alone:

- :mod:`~lessons_core.report.data` gathers the figures from the store (the outcome loop's
  verdicts, the scan's capture figures) into one JSON-ready dict: what ``--json`` prints;
- :mod:`~lessons_core.report.charts` draws them with matplotlib as inline SVG (the one heavy
  import, paid only by this command and only when it writes the page);
- :mod:`~lessons_core.report.page` fills the autoescaping jinja2 template, so nothing the store
  holds (lessons are written by agents: untrusted text) reaches the page unescaped.
"""
