"""sample_bots package."""
