"""Evaluation: labelled question sets, outcomes and metrics through the one gate, sweeps,
suggestions, calibration, batch runs. Retrieves through core.assistant only."""
