//! Test-only package: see `tests/` for the suites.
