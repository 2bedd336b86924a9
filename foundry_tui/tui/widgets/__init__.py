"""Widgets of the Foundry terminal application."""
