"""Read models for the dashboard and its JSON API: plain functions taking a ``Session``.

Views in ``dashboard/`` call these and render what they return; no SQL lives in a view.
Everything returned is plain data (dataclasses, dicts, lists) so the HTML pages and the
JSON API serve the same numbers.
"""
