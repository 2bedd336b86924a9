"""Screens of the Foundry terminal application."""
