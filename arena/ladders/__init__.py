"""The standing ladder: every valid bot played and ranked without an organiser."""
