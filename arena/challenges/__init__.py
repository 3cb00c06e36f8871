"""An owner's unrated match: one of their versions against three opponents they chose,
to see how it fares before (or beside) the ladder."""
