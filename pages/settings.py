"""Placeholder page; its owner replaces this file."""

import streamlit as st

st.info("该页面正在建设中。")
