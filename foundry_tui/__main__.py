"""`python -m foundry_tui` runs the `foundry` command line."""

from foundry_tui.launcher import entry_point

if __name__ == "__main__":  # a process started to parse on another core imports this module as __mp_main__
    entry_point()
