"""The test suite (a package, so its modules import tests.conftest from any folder)."""
