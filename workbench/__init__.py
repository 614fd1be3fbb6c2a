"""The ir-workbench desktop window (Qt)."""
