"""STAND-IN (tests only)."""
