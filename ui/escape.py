"""Escaping for text we did not write (URL parameters, model-server errors, corpus metadata, staff records).

st.error, st.warning, st.success, st.info, st.caption and st.markdown all render Markdown, so a
link or an image in such text would become a phishing link or a remote tracking image. Every
dynamic message goes through `md_escape` (or `st.text`) first. The escaping itself is the one in
ui/answer_view.py, which the answer rendering has always used.
"""

from __future__ import annotations

from ui.answer_view import md_escape

__all__ = ["md_escape"]
