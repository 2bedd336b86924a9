"""foundry-tui: the Foundry project-memory system and a terminal application for its curators."""

__version__ = "0.1.0"
