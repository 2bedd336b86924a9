"""`python -m foundry_tui` runs the `foundry` command line."""

from foundry_tui.launcher import entry_point

entry_point()
