"""Is a new version better than the one it would replace: comparisons on duplicate deals
(``start``, ``advance``), what a result means for the ladder seat (``promotion``), and the
version a bot's owner keeps current (``current``)."""
