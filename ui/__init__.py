"""Streamlit helpers shared by the pages: cached loaders and small render functions."""
